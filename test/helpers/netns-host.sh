#!/usr/bin/env bash
# Network namespaces that stand in for other machines (test/helpers/netns.ts; also usable by hand, as root).
#   netns-host.sh up OWNER_PID   → prints N: namespace portico-hN, veth ptchN (root, 10.200.N.1/24) ↔
#                                  ptcnN (namespace, 10.200.N.2/24), lo up, 10.200.0.0/16 via 10.200.N.1
#                                  (so every host reaches every root-side 10.200.*.1 address)
#   netns-host.sh kill N         → SIGKILL every process in the namespace (the host "dies"; its address
#                                  still answers, with refused connections)
#   netns-host.sh unplug N       → the cable is pulled: the host's end goes down, packets get no answer (the
#                                  root end keeps its route, marked linkdown, so nothing leaks to the default route)
#   netns-host.sh down N         → kill, delete the namespace and the veth pair, release N
#   netns-host.sh reap           → tear down what dead owners left behind
#   netns-host.sh probe          → exit 0 when namespaces and veth pairs can be made here
# N is allocated machine-wide under a flock on /run/portico-netns/.lock: each N has a file holding its
# owner's pid and start time, so parallel test files (and other checkouts) never collide, and whatever a
# crashed run left is reaped by the next `up`.
set -euo pipefail
dir=/run/portico-netns
mkdir -p "$dir"

ns() { echo "portico-h$1"; }
starttime() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }

kill_all() {
  local pids
  pids=$(ip netns pids "$(ns "$1")" 2>/dev/null || true)
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086
    kill -9 $pids 2>/dev/null || true
  fi
}

teardown() {
  kill_all "$1"
  ip link del "ptch$1" 2>/dev/null || true
  ip netns del "$(ns "$1")" 2>/dev/null || true
  rm -f "$dir/$1"
}

owner_alive() {
  local pid start
  read -r pid start <"$dir/$1" 2>/dev/null || return 1
  [ -n "$pid" ] && [ -d "/proc/$pid" ] && [ "$(starttime "$pid")" = "$start" ]
}

reap() {
  local f n
  for f in "$dir"/*; do
    [ -e "$f" ] || continue
    n=$(basename "$f")
    [[ "$n" =~ ^[0-9]+$ ]] || continue
    owner_alive "$n" || teardown "$n"
  done
  for n in $(ip netns list | sed -n 's/^portico-h\([0-9]\+\).*/\1/p'); do
    [ -e "$dir/$n" ] || teardown "$n"
  done
}

up() {
  local owner=$1 n
  [ -d "/proc/$owner" ] || { echo "no process $owner" >&2; exit 2; }
  reap
  for n in $(seq 1 254); do
    [ -e "$dir/$n" ] && continue
    echo "$owner $(starttime "$owner")" >"$dir/$n"
    local name veth peer
    name=$(ns "$n") veth="ptch$n" peer="ptcn$n"
    if ! {
      ip netns add "$name" &&
      ip link add "$veth" type veth peer name "$peer" netns "$name" &&
      ip addr add "10.200.$n.1/24" dev "$veth" &&
      ip link set "$veth" up &&
      ip netns exec "$name" ip link set lo up &&
      ip netns exec "$name" ip addr add "10.200.$n.2/24" dev "$peer" &&
      ip netns exec "$name" ip link set "$peer" up &&
      ip netns exec "$name" ip route add 10.200.0.0/16 via "10.200.$n.1"
    }; then
      teardown "$n"
      echo "could not set up namespace $name" >&2
      exit 1
    fi
    echo "$n"
    return 0
  done
  echo "no free 10.200.N network (all 254 in use)" >&2
  exit 1
}

cmd=${1:-}
exec 9>"$dir/.lock"
flock 9
case "$cmd" in
  up) up "${2:?owner pid}" ;;
  kill) kill_all "${2:?N}" ;;
  unplug) ip netns exec "$(ns "${2:?N}")" ip link set "ptcn$2" down ;;
  down) teardown "${2:?N}" ;;
  reap) reap ;;
  probe)
    reap
    probe="portico-probe-$$"
    # Both ends inside the probe's namespace: a link made in the root namespace is a network change that Chromium
    # answers by failing the navigations under way there (net::ERR_NETWORK_CHANGED), other test files' included.
    trap 'ip netns del "$probe" 2>/dev/null; true' EXIT
    ip netns add "$probe" && ip -n "$probe" link add ptchprobe type veth peer name ptcnprobe
    ;;
  *) echo "usage: $0 up OWNER_PID | kill N | unplug N | down N | reap | probe" >&2; exit 2 ;;
esac
