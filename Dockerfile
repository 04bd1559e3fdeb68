# The Plant Store server image: `docker build -t plantstore .` from a clone, then
#   docker run -p 3000:3000 -v plantdata:/data plantstore
# Every stage starts from NODE_IMAGE, so a site can pin a digest or use its own mirror.
ARG NODE_IMAGE=node:26-bookworm-slim

# ---- manifests: the workspace's package.json files alone ----
# The install below is redone when these or the lockfile change, not for every source edit.
FROM ${NODE_IMAGE} AS manifests
COPY . /context
RUN cd /context \
 && find . -name node_modules -prune -o -name package.json -print | while read -r manifest; do \
      mkdir -p "/manifests/$(dirname "$manifest")" && cp "$manifest" "/manifests/$manifest"; \
    done

# ---- build: the server's dependencies, the TypeScript build ----
# No compiler: better-sqlite3 13 ships its compiled addon (Node-API, one per platform) in its package.
FROM ${NODE_IMAGE} AS build
# The npm registry to install from: the build passes its machine's setting (`npm config get registry`).
ARG NPM_CONFIG_REGISTRY=https://registry.npmjs.org/
ENV npm_config_registry=${NPM_CONFIG_REGISTRY}
WORKDIR /usr/src/app
# The pnpm that package.json pins (packageManager), never "latest"; npm installs it (no corepack).
COPY package.json ./
RUN npm install --global --no-fund --no-audit --no-update-notifier \
      "$(node -p 'require("./package.json").packageManager')"
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
COPY --from=manifests /manifests ./
RUN pnpm install --frozen-lockfile --filter "@plantstore/server..." --filter "@plantstore/web..."
COPY . .
# The server and the web app it serves at / (with the workspace packages they use), built. Then, as
# in the repository (the server finds the app's files at ../web/dist): the server with its production
# dependencies alone (from the lockfile and the store, nothing resolved anew) and the app's static
# files, in /out (without the workspace settings pnpm 11's deploy copies beside the lockfile: nothing
# runs pnpm there). better-sqlite3 keeps its JavaScript and the one prebuilt addon this image's platform
# loads (linux-<arch>, glibc); the other platforms' addons (15 MB) and SQLite's sources (10 MB) stay behind.
RUN pnpm --filter "@plantstore/server..." --filter "@plantstore/web..." run build \
 && pnpm --offline --frozen-lockfile --filter @plantstore/server --config.inject-workspace-packages=true \
      deploy --prod /out/apps/server \
 && rm /out/apps/server/pnpm-workspace.yaml \
 && mkdir -p /out/apps/web \
 && cp -r apps/web/dist /out/apps/web/dist \
 && cd /out/apps/server/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3 \
 && addon="linux-$(node -p process.arch).node" \
 && test -f "prebuilds/$addon" \
 && find prebuilds -type f ! -name "$addon" -delete \
 && rm -rf deps src binding.gyp

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
# so a graceful shutdown finishes and the process exits 0 instead of being killed mid-way. The
# first-run notice names the admin command as it is run from outside (docs/deploy.md), not the path
# of main.js inside.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/plantstore.db \
    PLANTSTORE_SHUTDOWN_TIMEOUT_MS=8000 \
    PLANTSTORE_ADMIN_COMMAND="docker run --rm -v plantdata:/data plantstore"
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
