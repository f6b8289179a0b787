# syntax=docker/dockerfile:1
# Softshelf: one image, one role per container (`all`, `bff`, `api` or `authcore` as the command).
# Role `api` alone: set API_HOST=0.0.0.0; role `authcore` alone: AUTH_CORE_HOST=0.0.0.0 (the
# health check asks each role on its own port: PORT, API_PORT or AUTH_CORE_PORT).
#
# docker build -t softshelf .         (from node:24-slim on Docker Hub)
# scripts/container/build.sh          (podman, offline base: see README "Running in production")
#
# BASE_IMAGE: any Debian-like image with Node 24, npm and a `node` user of uid 1000.
ARG BASE_IMAGE=node:24-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /app
# NPM_REGISTRY: the registry npm ci fetches from (the builder's `npm config get registry`).
ARG NPM_REGISTRY=https://registry.npmjs.org/
COPY package.json package-lock.json ./
# The secret `ca` (optional): a CA bundle npm must trust (a proxy's, say). Mounted for this step
# only, never part of a layer.
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    npm ci --no-audit --no-fund --registry "$NPM_REGISTRY"
COPY . .
ARG BUILD_ID=container
ENV BUILD_ID=${BUILD_ID}
# Build, then keep only what runs: the production dependencies.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${BASE_IMAGE}
ENV NODE_ENV=production \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/locales ./locales
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000 3001 3567
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "dist/server/healthcheck.js"]
# node is PID 1: it gets SIGTERM itself and close-with-grace (server/main.ts) drains and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/server/main.js"]
CMD ["all"]
