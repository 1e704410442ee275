# One image for every role; ROLES picks what a container runs.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
USER node
CMD ["npx", "tsx", "bin/main.ts"]
