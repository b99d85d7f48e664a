# syntax=docker/dockerfile:1
# Mailpit (an SMTP server with a web inbox and API) as a static binary FROM scratch, for the
# Compose stack: the mail auth sends (reset links, change notices) lands in its inbox. Kubernetes
# sends through the SMTP relay its Secret names instead.
# Build from the repository root:
#   docker build -f tools/docker/mailpit.Dockerfile -t oasis198/mailpit:v1.33.1 .
# ARTIFACTS=context takes the binary built on the host from dist/images/mailpit/ instead (npm run images).
ARG GO_IMAGE=golang:1.26-trixie
ARG ARTIFACTS=build

FROM ${GO_IMAGE} AS build
ARG MAILPIT_VERSION=v1.33.1
RUN CGO_ENABLED=0 GOBIN=/out go install -trimpath -ldflags='-s -w' \
      "github.com/axllent/mailpit@${MAILPIT_VERSION}" \
  && mkdir -p /out/data

FROM scratch AS from-build
COPY --from=build /out/ /

FROM scratch AS from-context
COPY dist/images/mailpit/ /

FROM from-${ARTIFACTS} AS artifacts

FROM scratch
COPY --from=artifacts --chown=10001:10001 / /
USER 10001:10001
# 1025 SMTP, 8025 the web inbox and its API (/livez).
EXPOSE 1025 8025
VOLUME /data
ENTRYPOINT ["/mailpit"]
CMD ["--smtp=0.0.0.0:1025", "--listen=0.0.0.0:8025", "--database=/data/mailpit.db", "--disable-version-check"]
