export {
  blockNumberMember,
  chainPositionKey,
  cursorSchema,
  logIndexMember,
  encodeCursor,
  limitQuery,
  pageQuery,
  toPage,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
} from './cursor-page';
export type { Page } from './cursor-page';
