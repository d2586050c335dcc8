# The assay image: one static binary, CA certificates, nothing else (no
# shell, no package manager). Build it from a clone of this repository:
#
#   docker build -t assay .
#   docker run --rm -v "$PWD:/work" assay run examples/quickstart/suite.yaml
#
# The build stage runs the release build (.goreleaser.yaml) for the
# platform being built: the same goreleaser command as a release and as
# the tests, so the image's binary is the release binary of that platform.
# Only the Go module proxy is reached (goreleaser and go.sum's modules).

FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS
ARG TARGETARCH
ARG GORELEASER_VERSION=v2.17.0
ENV GOTOOLCHAIN=local
RUN GOBIN=/usr/local/bin go install github.com/goreleaser/goreleaser/v2@${GORELEASER_VERSION}
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH goreleaser build --snapshot --single-target --clean --output /out/assay
# The final stage has no shell to make directories with: make them here.
RUN mkdir -p /out/tmp /out/work && chmod 1777 /out/tmp

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/tmp /tmp
COPY --from=build --chown=65532:65532 /out/work /work
COPY --from=build /out/assay /assay
# Not root; HOME for the response cache (under $HOME/.cache).
USER 65532:65532
ENV HOME=/tmp
WORKDIR /work
ENTRYPOINT ["/assay"]
CMD ["--help"]
