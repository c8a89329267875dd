#!/bin/sh
# The /init of scripts/vm/run's initramfs (busybox sh): loads the modules, mounts the host's
# root over 9p (read-only, cache=loose), makes the writable layers, mounts the cgroup layout
# asked for, leaves the initramfs with switch_root and runs the job's command there; its exit
# status goes to the job folder, then the guest powers off.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do
    [ -z "$m" ] || insmod "/mod/$m" || echo "init: cannot load $m"
done < /mod/order
give_up() { echo "init: $*"; echo 125 > /job/status; sync; poweroff -f; }
ninep=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$ninep" job /job || give_up "no job folder"
. /job/settings
R=/newroot
mount -t 9p -o "$ninep,ro,cache=loose" root "$R" || give_up "cannot mount the host's root"

# Writable layers, thrown away with the guest: an overlay with a tmpfs upper on each.
mount -t tmpfs -o mode=0755 layers /layers
n=0
for d in /tmp /var/tmp /root /home $OVERLAYS; do
    [ -d "$R$d" ] || continue
    n=$((n + 1))
    mkdir -p "/layers/$n/upper" "/layers/$n/work"
    mount -t overlay overlay -o "lowerdir=$R$d,upperdir=/layers/$n/upper,workdir=/layers/$n/work" "$R$d" \
        || give_up "no writable layer on $d"
done
chmod 1777 "$R/tmp" "$R/var/tmp"
mount -t tmpfs -o mode=0755 run "$R/run"
mkdir -p "$R/run/job" "$R/run/vm"
mount --move /job "$R/run/job"
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount -o bind /dev "$R/dev"
mkdir -p "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$R/dev/pts"
mount -t tmpfs -o mode=1777 shm "$R/dev/shm"
mount -t securityfs securityfs "$R/sys/kernel/security" 2>/dev/null

C=$R/sys/fs/cgroup
case "$CGROUP" in
    v2)
        # The layout of a host or container that delegates cgroup v2: the controllers enabled
        # for the root's children; the command runs in the root cgroup.
        mount -t cgroup2 -o nsdelegate cgroup2 "$C" || give_up "no cgroup2"
        for c in pids memory cpu; do
            echo "+$c" > "$C/cgroup.subtree_control" || echo "init: cannot enable $c"
        done ;;
    hybrid)
        mount -t tmpfs -o mode=0755 cgroup "$C"
        for c in $(awk 'NR > 1 && $4 == 1 { print $1 }' /proc/cgroups); do
            mkdir -p "$C/$c"
            mount -t cgroup -o "$c" "$c" "$C/$c" || rmdir "$C/$c"
        done
        mkdir -p "$C/unified"
        mount -t cgroup2 cgroup2 "$C/unified" ;;
esac
ip link set lo up 2>/dev/null
hostname vm

# The rest runs from the host's root, with busybox copied where the command cannot change it.
cp /bin/busybox "$R/run/vm/busybox"
cat > "$R/run/vm/run.sh" <<'EOF'
B=/run/vm/busybox
J=/run/job
. $J/settings
cd /
$B touch $J/started
if [ -n "$RUN_AS" ]; then
    home=/tmp/home-$RUN_AS
    $B mkdir -p "$home" && $B chown "$RUN_AS:$RUN_AS" "$home"
    /usr/bin/env -i HOME="$home" USER="u$RUN_AS" LANG=C.UTF-8 TERM=dumb \
        /usr/bin/setpriv --reuid="$RUN_AS" --regid="$RUN_AS" --clear-groups \
        /bin/bash $J/cmd < /dev/null > $J/out 2>&1
else
    /usr/bin/env -i HOME=/root USER=root LANG=C.UTF-8 TERM=dumb /bin/bash $J/cmd < /dev/null > $J/out 2>&1
fi
echo $? > $J/status
$B touch $J/finished
$B sync
$B umount $J 2>/dev/null
$B poweroff -f
EOF
exec switch_root "$R" /run/vm/busybox sh /run/vm/run.sh
