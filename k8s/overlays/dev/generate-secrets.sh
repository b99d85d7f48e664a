#!/bin/sh
# Makes the dev overlay's secrets, once: a random ES256 token signing key pair (openssl), one
# random NATS password per service, and each database service's MONGO_URL with its own user and random password on the
# in-cluster MongoDB (which creates the users from these URLs), in k8s/overlays/dev/secrets/
# (ignored by git), which kustomization.yaml reads. Run it
# before the first `kubectl apply -k k8s/overlays/dev`. Files that exist are kept, so players stay
# logged in across applies; delete the folder to make new ones.
set -eu
dir="$(cd "$(dirname "$0")" && pwd)/secrets"
mkdir -p "$dir"
umask 077
random() {
  od -An -N32 -tx1 /dev/urandom | tr -d ' \n'
}
make() {
  if [ ! -s "$dir/$1" ]; then printf '%s=%s\n' "$2" "$(random)" > "$dir/$1"; fi
}
if [ ! -s "$dir/jwt-key.pem" ]; then
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/jwt-key.pem"
  openssl pkey -in "$dir/jwt-key.pem" -pubout -out "$dir/jwt-public-key.pem"
fi
for service in gateway auth rewards rooms game-timer tournaments; do
  make "$service-nats.env" NATS_PASSWORD
done
for service in auth rewards rooms tournaments; do
  if [ ! -s "$dir/$service-mongodb.env" ]; then
    printf 'MONGO_URL=mongodb://%s:%s@oasis198-mongodb:27017/oasis-%s?authSource=oasis-%s\n' \
      "$service" "$(random)" "$service" "$service" > "$dir/$service-mongodb.env"
  fi
done
echo "Secrets of the dev overlay: $dir"
