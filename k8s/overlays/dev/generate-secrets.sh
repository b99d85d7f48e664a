#!/bin/sh
# Makes the dev overlay's secrets, once: a random JWT signing key and one random NATS password per
# service, in k8s/overlays/dev/secrets/ (ignored by git), which kustomization.yaml reads. Run it
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
make auth-jwt.env JWT_SECRET
for service in gateway auth rewards rooms game-timer; do
  make "$service-nats.env" NATS_PASSWORD
done
echo "Secrets of the dev overlay: $dir"
