# One tree, three stages. `build` installs everything and compiles the service to JavaScript
# (`npm run build` -> dist/). `runtime` (the last stage, built by default) is the image of every
# role: installed with --omit=dev, it holds the compiled service and what it reads beside its
# code (docs/guides for the /docs page, the Redis Lua scripts), no TypeScript loader, no Hardhat and no solc, so it runs
# `node dist/bin/main.js` with DEVCHAIN=off and a registry filled by the operator CLI.
# `devchain` adds the compiled contracts for the local Hardhat node of docker-compose.yml and the
# one-shot deploy onto it. Node 24 is the supported LTS the images run (docs/OPERATIONS.md).
FROM node:24-bookworm-slim AS base
WORKDIR /app
COPY package.json package-lock.json ./

FROM base AS build
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM build AS devchain
# Compiled while the build still runs as root: the container's `node` user cannot write under /app.
RUN npx tsx dev/build-contracts.ts
USER node

FROM base AS runtime
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY docs/guides ./docs/guides
COPY shared/platform/redis/lua ./shared/platform/redis/lua
ENV NODE_ENV=production
USER node
CMD ["node", "dist/bin/main.js"]
