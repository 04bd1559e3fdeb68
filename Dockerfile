# The Plant Store server image: `docker build -t plantstore .` from a clone, then
#   docker run -p 3000:3000 -v plantdata:/data plantstore
# Every stage starts from NODE_IMAGE, so a site can pin a digest or use its own mirror.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- manifests: the workspace's package.json files alone ----
# The install below is redone when these or the lockfile change, not for every source edit (it
# compiles better-sqlite3, the slow part of a build).
FROM ${NODE_IMAGE} AS manifests
COPY . /context
RUN cd /context \
 && find . -name node_modules -prune -o -name package.json -print | while read -r manifest; do \
      mkdir -p "/manifests/$(dirname "$manifest")" && cp "$manifest" "/manifests/$manifest"; \
    done

# ---- build: the toolchain, the server's dependencies, the TypeScript build ----
FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles with these (patched, it always builds from source: patches/).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# node-gyp builds against the headers of the Node in this image (they sit beside it in
# /usr/local/include/node) instead of downloading them.
ENV npm_config_nodedir=/usr/local
# The npm registry to install from: the build passes its machine's setting (`npm config get registry`).
ARG NPM_CONFIG_REGISTRY=https://registry.npmjs.org/
ENV npm_config_registry=${NPM_CONFIG_REGISTRY}
WORKDIR /usr/src/app
# The pnpm that package.json pins (packageManager), never "latest"; npm installs it (no corepack).
COPY package.json ./
RUN npm install --global --no-fund --no-audit --no-update-notifier \
      "$(node -p 'require("./package.json").packageManager')"
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
COPY patches ./patches
COPY --from=manifests /manifests ./
RUN pnpm install --frozen-lockfile --filter "@plantstore/server..." --filter "@plantstore/web..."
COPY . .
# The server and the web app it serves at / (with the workspace packages they use), built. Then, as
# in the repository (the server finds the app's files at ../web/dist): the server with its production
# dependencies alone (from the lockfile and the store, nothing resolved anew) and the app's static
# files, in /out. better-sqlite3 keeps its compiled addon; its sources and object files stay behind.
RUN pnpm --filter "@plantstore/server..." --filter "@plantstore/web..." run build \
 && pnpm --offline --frozen-lockfile --filter @plantstore/server --config.inject-workspace-packages=true \
      deploy --prod /out/apps/server \
 && mkdir -p /out/apps/web \
 && cp -r apps/web/dist /out/apps/web/dist \
 && cd /out/apps/server/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3 \
 && mv build/Release/better_sqlite3.node /tmp/ \
 && rm -rf build deps src \
 && mkdir -p build/Release \
 && mv /tmp/better_sqlite3.node build/Release/

# ---- runtime: node, the built server, its production dependencies, the web app; nothing else ----
FROM ${NODE_IMAGE} AS runtime
ARG VERSION=1.0.0
ARG SOURCE_URL=""
LABEL org.opencontainers.image.title="Plant Store" \
      org.opencontainers.image.description="Plant Store API server (SQLite at /data, or PostgreSQL)" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}"
# The shutdown budget ends before the engine's stop timeout (10 s for docker stop and podman stop),
# so a graceful shutdown finishes and the process exits 0 instead of being killed mid-way.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/plantstore.db \
    PLANTSTORE_SHUTDOWN_TIMEOUT_MS=8000
WORKDIR /usr/src/app
# Owned by root, read-only to the server: only /data is written.
COPY --from=build /out ./
RUN mkdir /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself. Arguments after the image name are the
# server's command line (`tokens create ci`, `webhooks list`).
ENTRYPOINT ["node", "/usr/src/app/apps/server/dist/main.js"]
