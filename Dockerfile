# Production image: the built server, production dependencies only. Runs `npm start`'s
# command against the REDIS_URL and MONGODB_URL it is given (see docker-compose.yml).
# Debian bookworm: glibc 2.36, which the native uWebSockets.js binding needs.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY bench bench
COPY lua lua
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/lua lua
USER node
EXPOSE 9001
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "dist/src/main.js"]
