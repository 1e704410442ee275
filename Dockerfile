# One tree, two targets. `runtime` (the last stage, built by default) is the image of every role:
# installed with --omit=dev, it holds no Hardhat and no solc, so it runs with DEVCHAIN=off and a
# registry filled by `npm run ops`. `devchain` adds the devDependencies for the local Hardhat node
# of docker-compose.yml and the one-shot deploy onto it.
FROM node:20-bookworm-slim AS base
WORKDIR /app
COPY package.json package-lock.json ./

FROM base AS devchain
RUN npm ci --no-audit --no-fund
COPY . .
# Compiled while the build still runs as root: the container's `node` user cannot write under /app.
RUN npx tsx dev/build-contracts.ts
USER node

FROM base AS runtime
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
USER node
CMD ["npx", "tsx", "bin/main.ts"]
