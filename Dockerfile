# cbandit: a static binary on a distroless base, run as a non-root user.
#
#   docker build -t cbandit .
#   docker run --rm -p 8080:8080 -v cbandit-data:/data cbandit \
#     serve --addr 0.0.0.0:8080 --db sqlite:/data/cbandit.db --token "$CBANDIT_TOKEN"
#
# The default command serves on 0.0.0.0:8080 with SQLite in /data (a volume);
# deploy/service/ runs two replicas on PostgreSQL.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# modernc.org/sqlite and pgx are pure Go: CGO off gives a static binary.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/cbandit ./cmd/cbandit \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/cbandit /usr/local/bin/cbandit
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
EXPOSE 8080
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/cbandit"]
CMD ["serve", "--addr", "0.0.0.0:8080", "--db", "sqlite:/data/cbandit.db"]
