# syntax=docker/dockerfile:1
# Every Oasis 198 Node.js service (gateway, auth, rewards, rooms, game-timer, tournaments) from one Dockerfile;
# the service is a build argument. Build from the repository root:
#   docker build -f tools/docker/node-service.Dockerfile --build-arg APP=auth -t oasis198/auth:0.1.0 .
#
# build    the whole workspace installed (npm ci), then only this app built: one webpack bundle
#          (workspace libraries inlined; tools/webpack/node-service.cjs) plus a package.json and
#          lockfile pruned to the npm packages the bundle imports (Nx generatePackageJson);
# deps     npm ci --omit=dev from that pruned lockfile: this app's runtime packages only (auth's
#          argon2 loads its bundled glibc prebuild: no compiler in the image);
# runtime  Node.js 24 LTS, the bundle and those packages, as an unprivileged user (uid 10001).
#          Nothing is written outside /tmp, so the root filesystem can be read-only. node is PID 1
#          and gets SIGTERM itself (exec-form CMD): the service leaves its NATS queue group,
#          finishes the work in hand, flushes its outbox and drains NATS.
#
# ARTIFACTS=context skips build and deps: the same files, made on the build host, are taken from
# dist/images/<APP>/ in the build context (main.js, main.js.map, package.json, node_modules).
# That is how `npm run images` builds here, where a container cannot reach the package registry
# without the host's certificates (docs/deploy.md); NODE_IMAGE then names a base made here.
ARG NODE_IMAGE=node:24-trixie-slim
# The service to build: gateway, auth, rewards, rooms, game-timer or tournaments (its Nx project, apps/<APP>).
ARG APP
# build: compile inside the image build; context: take prebuilt artifacts from dist/images/<APP>.
ARG ARTIFACTS=build

FROM ${NODE_IMAGE} AS build
ARG APP
RUN test -n "$APP" || { echo 'pass --build-arg APP=<gateway|auth|rewards|rooms|game-timer|tournaments>' >&2; exit 1; }
WORKDIR /workspace
ENV NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false CI=true
COPY package.json package-lock.json .npmrc ./
# Applied by the install's postinstall (patch-package; docs/adr/0022-library-patches-for-speed.md).
COPY patches/ patches/
# npm ci, or npm install when npm ci refuses the lockfile: it has no entries for other platforms'
# optional binaries (docs/adr/0029-toolchain-and-tooling.md). Every version still comes from package-lock.json.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund || npm install --no-audit --no-fund
COPY nx.json tsconfig.base.json ./
COPY libs/ libs/
COPY tools/webpack/ tools/webpack/
COPY apps/${APP}/ apps/${APP}/
RUN npx nx run "${APP}:build" --skip-nx-cache

FROM ${NODE_IMAGE} AS deps
ARG APP
WORKDIR /app
COPY --from=build /workspace/dist/apps/${APP}/package.json /workspace/dist/apps/${APP}/package-lock.json ./
# No install scripts: native modules (argon2) load their prebuilt binaries at run time.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund
# nats.js as patched in the build stage (patches/); every service bundle uses it.
COPY --from=build /workspace/node_modules/nats/ /app/node_modules/nats/

FROM scratch AS from-build
ARG APP
COPY --from=deps /app/node_modules /app/node_modules
COPY --from=build /workspace/dist/apps/${APP}/main.js /workspace/dist/apps/${APP}/main.js.map /workspace/dist/apps/${APP}/package.json /app/

FROM scratch AS from-context
ARG APP
COPY dist/images/${APP}/ /app/

FROM from-${ARTIFACTS} AS artifacts

FROM ${NODE_IMAGE} AS runtime
ARG APP
ENV NODE_ENV=production \
    HTTP_PORT=8080
WORKDIR /app
COPY --from=artifacts /app /app
USER 10001:10001
EXPOSE 8080
# Kubernetes uses its own probes; this serves `docker run` and Compose.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HTTP_PORT || 8080) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "main.js"]
