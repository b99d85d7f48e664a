# syntax=docker/dockerfile:1
# The FerretDB launcher (tools/ferretdb: FerretDB v1 on SQLite behind a write-serialising proxy,
# with our patch) as a static binary FROM scratch: the MongoDB-compatible server of the Compose
# stack and the Testcontainers suites. Build from the repository root:
#   docker build -f tools/docker/ferretdb.Dockerfile -t oasis198/ferretdb:1.24.2 .
# ARTIFACTS=context takes the binary built on the host from dist/images/ferretdb/ (npm run images).
ARG GO_IMAGE=golang:1.26-trixie
ARG ARTIFACTS=build

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY tools/ferretdb/ ./
# The same build as tools/scripts/setup.ts: FerretDB's module with the files of _patches laid
# over it, through a temporary go.mod whose replace directive points at the patched copy.
RUN set -eu; \
    module=github.com/FerretDB/FerretDB; version="$(cat _patches/VERSION)"; \
    go mod download "$module@$version"; \
    cp -r "$(go list -m -f '{{.Dir}}' "$module")" /ferretdb-src; chmod -R u+w /ferretdb-src; \
    (cd _patches && find . -type f ! -name VERSION ! -name README.md -exec cp {} /ferretdb-src/{} \;); \
    cp go.mod /tmp/go.mod; cp go.sum /tmp/go.sum; echo "replace $module => /ferretdb-src" >> /tmp/go.mod; \
    CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -modfile /tmp/go.mod -o /out/ferretdb .; \
    mkdir -p /out/data /out/tmp && chmod 1777 /out/tmp

FROM scratch AS from-build
COPY --from=build /out/ /

FROM scratch AS from-context
COPY dist/images/ferretdb/ /

FROM from-${ARTIFACTS} AS artifacts

FROM scratch
COPY --from=artifacts --chown=10001:10001 / /
USER 10001:10001
EXPOSE 27017
VOLUME /data
# FerretDB keeps its private socket in /tmp: mount a tmpfs there when the root is read-only.
ENV TMPDIR=/tmp
ENTRYPOINT ["/ferretdb", "-listen=0.0.0.0:27017", "-data=/data"]
