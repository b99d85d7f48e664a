# syntax=docker/dockerfile:1
# NATS server (with JetStream) as a static binary FROM scratch, for the Compose stack and the
# Testcontainers suites. Kubernetes uses the official NATS image through the umbrella chart.
# Build from the repository root:
#   docker build -f tools/docker/nats.Dockerfile -t oasis198/nats:2.14.9 .
# ARTIFACTS=context takes the binary built on the host from dist/images/nats/ instead (npm run images).
ARG GO_IMAGE=golang:1.26-trixie
ARG ARTIFACTS=build

FROM ${GO_IMAGE} AS build
ARG NATS_SERVER_VERSION=v2.14.9
RUN CGO_ENABLED=0 GOBIN=/out go install -trimpath -ldflags='-s -w' \
      "github.com/nats-io/nats-server/v2@${NATS_SERVER_VERSION}" \
  && mkdir -p /out/data

FROM scratch AS from-build
COPY --from=build /out/ /

FROM scratch AS from-context
COPY dist/images/nats/ /

FROM from-${ARTIFACTS} AS artifacts

FROM scratch
COPY --from=artifacts --chown=10001:10001 / /
USER 10001:10001
# 4222 clients, 8222 monitoring (/healthz).
EXPOSE 4222 8222
VOLUME /data
ENTRYPOINT ["/nats-server"]
CMD ["--jetstream", "--store_dir=/data", "--http_port=8222"]
