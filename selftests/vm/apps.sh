# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Real programs between two namespaces, as they are (Linux TCP) or under a
# wrapper (`build/tonic run --`): sourced by selftests/vm/test_apps.sh,
# which checks them, and scripts/bench-vm.sh, which reports their figures.
#
# The caller sets APP_NS_C and APP_NS_S (client and server namespaces),
# APP_ADDR (the server's IPv4 address) and APP_DIR (a scratch directory),
# and calls app_prepare once.  Each app_* function takes a label and the
# wrapper (empty: TCP), starts the server, runs the client, stops the
# server, and writes one JSON line of figures and verdicts to
# $APP_DIR/LABEL.json; it returns non-zero if the program did not do its
# job (what went wrong on stderr).  Every step has a deadline (APP_TIMEOUT seconds).
#
#   app_redis LABEL [WRAP...]  redis-server; redis-benchmark SET and GET
#                              (APP_REDIS_REQS requests, 8 clients) and a
#                              300 KB value SET then GET, byte for byte
#   app_nginx LABEL [WRAP...]  nginx; curl of a 20 MB file, SHA-256
#   app_scp LABEL [WRAP...]    sshd; scp (SFTP) of the same file, SHA-256
#
# app_missing NAME prints which binary NAME needs that is absent, if any.

APP_TIMEOUT=${APP_TIMEOUT:-240}
APP_REDIS_REQS=${APP_REDIS_REQS:-2000}
APP_FILE_MB=${APP_FILE_MB:-20}
APP_REDIS_PORT=6379
APP_HTTP_PORT=8081
APP_SSH_PORT=2222

app_missing() {
	local b
	case $1 in
	redis) set -- redis-server redis-benchmark redis-cli ;;
	nginx) set -- nginx curl ;;
	scp) set -- /usr/sbin/sshd scp ssh-keygen ;;
	esac
	for b in "$@"; do
		command -v "$b" >/dev/null || { echo "$b"; return 0; }
	done
	return 1
}

# The file the transfers move, its SHA-256, the 300 KB redis value.
app_prepare() {
	mkdir -p "$APP_DIR/www"
	chmod 755 "$APP_DIR" "$APP_DIR/www"
	head -c $((APP_FILE_MB * 1000000)) /dev/urandom >"$APP_DIR/www/file"
	chmod 644 "$APP_DIR/www/file"
	APP_SHA=$(sha256sum <"$APP_DIR/www/file" | cut -d' ' -f1)
	head -c 300000 /dev/urandom >"$APP_DIR/value"
	APP_VALUE_SHA=$(sha256sum <"$APP_DIR/value" | cut -d' ' -f1)
}

# app_wait PORT WRAP...: until a connection to the server succeeds (the
# probe, bash's /dev/tcp, runs under the same wrapper: a Tonic server
# refuses TCP), at most 60 s.
app_wait() {
	local port=$1
	shift
	ip netns exec "$APP_NS_C" timeout 70 "$@" bash -c '
		for _ in $(seq 300); do
			(exec 3<>"/dev/tcp/$0/$1") 2>/dev/null && exit 0
			sleep 0.2
		done
		exit 1' "$APP_ADDR" "$port"
}

# app_stop PID: end a server started as `ip netns exec NS timeout ...`:
# timeout passes SIGTERM to its process group (tonic run passes it on).
app_stop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# app_now: seconds since the epoch, to the nanosecond.
app_now() { date +%s.%N; }

app_redis() {
	local label=$1 pid rc=0 csv set get bigrc big
	shift
	ip netns exec "$APP_NS_S" timeout "$APP_TIMEOUT" "$@" redis-server \
		--bind "$APP_ADDR" --port $APP_REDIS_PORT --protected-mode no \
		--save "" --appendonly no --dir "$APP_DIR" --daemonize no \
		--logfile "$APP_DIR/$label.redis.log" &
	pid=$!
	app_wait $APP_REDIS_PORT "$@" || rc=1
	csv=$(ip netns exec "$APP_NS_C" timeout "$APP_TIMEOUT" "$@" redis-benchmark \
		-h "$APP_ADDR" -p $APP_REDIS_PORT -c 8 -n "$APP_REDIS_REQS" \
		-t set,get --csv 2>"$APP_DIR/$label.bench.err") || rc=1
	set=$(awk -F'"' '$2 == "SET" { print $4 }' <<<"$csv")
	get=$(awk -F'"' '$2 == "GET" { print $4 }' <<<"$csv")
	[ -n "$set" ] && [ -n "$get" ] || rc=1
	# 300 KB through SET, back through GET (--raw adds one newline)
	big=$(ip netns exec "$APP_NS_C" timeout "$APP_TIMEOUT" "$@" sh -c "
		redis-cli -h $APP_ADDR -p $APP_REDIS_PORT -x SET big <'$APP_DIR/value' &&
		redis-cli -h $APP_ADDR -p $APP_REDIS_PORT --raw GET big >'$APP_DIR/$label.got'" \
		2>&1)
	bigrc=$?
	head -c 300000 "$APP_DIR/$label.got" | sha256sum | grep -q "^$APP_VALUE_SHA " &&
		[ "$(stat -c %s "$APP_DIR/$label.got")" = 300001 ] || bigrc=1
	[ $bigrc = 0 ] || { echo "# redis 300 KB: $big" >&2; rc=1; }
	app_stop $pid
	jq -cn --arg run "$label" --arg set "$set" --arg get "$get" \
		--argjson value_ok "$([ $bigrc = 0 ] && echo true || echo false)" \
		'{app: "redis", run: $run, set_rps: ($set | tonumber? // null),
		  get_rps: ($get | tonumber? // null), value_300k_ok: $value_ok}' \
		>"$APP_DIR/$label.json"
	return $rc
}

app_nginx() {
	local label=$1 pid rc=0 out code speed sha
	shift
	mkdir -p "$APP_DIR/nginx-$label"
	cat >"$APP_DIR/nginx-$label/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $APP_DIR/nginx-$label/nginx.pid;
error_log $APP_DIR/nginx-$label/error.log;
events { worker_connections 64; }
http {
	access_log off;
	sendfile on;
	client_body_temp_path $APP_DIR/nginx-$label;
	proxy_temp_path $APP_DIR/nginx-$label;
	fastcgi_temp_path $APP_DIR/nginx-$label;
	uwsgi_temp_path $APP_DIR/nginx-$label;
	scgi_temp_path $APP_DIR/nginx-$label;
	server {
		listen $APP_ADDR:$APP_HTTP_PORT;
		root $APP_DIR/www;
	}
}
EOF
	ip netns exec "$APP_NS_S" timeout "$APP_TIMEOUT" "$@" nginx \
		-p "$APP_DIR/nginx-$label" -e "$APP_DIR/nginx-$label/error.log" \
		-c "$APP_DIR/nginx-$label/nginx.conf" &
	pid=$!
	app_wait $APP_HTTP_PORT "$@" || rc=1
	out=$(ip netns exec "$APP_NS_C" timeout "$APP_TIMEOUT" "$@" curl -sS \
		-m $((APP_TIMEOUT - 10)) -o "$APP_DIR/$label.got" \
		-w '%{http_code} %{speed_download}' \
		"http://$APP_ADDR:$APP_HTTP_PORT/file" 2>&1) || rc=1
	read -r code speed <<<"$out"
	sha=$(sha256sum <"$APP_DIR/$label.got" 2>/dev/null | cut -d' ' -f1)
	[ "$code" = 200 ] && [ "$sha" = "$APP_SHA" ] || rc=1
	[ $rc = 0 ] || echo "# nginx: $out" >&2
	app_stop $pid
	rm -f "$APP_DIR/$label.got"
	jq -cn --arg run "$label" --arg speed "$speed" \
		--argjson ok "$([ "$sha" = "$APP_SHA" ] && echo true || echo false)" \
		'{app: "nginx", run: $run, bps: (($speed | tonumber? // null) |
		  if . then . * 8 else null end), sha256_ok: $ok}' \
		>"$APP_DIR/$label.json"
	return $rc
}

# sshd runs as root unless root's account is locked ("!" in shadow, which
# sshd refuses without PAM); then as nobody: SFTP is internal-sftp, which
# needs no login shell.
app_ssh_user() {
	if [ "$(awk -F: '$1 == "root" { print substr($2, 1, 1) }' /etc/shadow)" = "!" ]; then
		echo nobody
	else
		echo root
	fi
}

app_scp() {
	local label=$1 pid rc=0 d user t0 t1 out sha
	shift
	d=$APP_DIR/ssh-$label
	user=$(app_ssh_user)
	rm -rf "$d"
	mkdir -p "$d" /run/sshd
	chmod 755 /run/sshd
	ssh-keygen -q -t ed25519 -N '' -f "$d/id" &&
		ssh-keygen -q -t ed25519 -N '' -f "$d/host" || rc=1
	cp "$d/id.pub" "$d/authorized_keys"
	chmod 755 "$d"
	chmod 644 "$d/authorized_keys"
	cat >"$d/sshd_config" <<EOF
Port $APP_SSH_PORT
ListenAddress $APP_ADDR
HostKey $d/host
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
Subsystem sftp internal-sftp
ForceCommand internal-sftp
LogLevel ERROR
EOF
	ip netns exec "$APP_NS_S" timeout "$APP_TIMEOUT" "$@" /usr/sbin/sshd -D -e \
		-f "$d/sshd_config" 2>"$d/sshd.log" &
	pid=$!
	app_wait $APP_SSH_PORT "$@" || rc=1
	t0=$(app_now)
	out=$(ip netns exec "$APP_NS_C" timeout "$APP_TIMEOUT" "$@" scp -q -i "$d/id" \
		-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
		-o BatchMode=yes -o LogLevel=ERROR -P $APP_SSH_PORT \
		"$user@$APP_ADDR:$APP_DIR/www/file" "$APP_DIR/$label.got" 2>&1) || rc=1
	t1=$(app_now)
	sha=$(sha256sum <"$APP_DIR/$label.got" 2>/dev/null | cut -d' ' -f1)
	[ "$sha" = "$APP_SHA" ] || rc=1
	[ $rc = 0 ] && echo "# scp as $user" >&2 ||
		echo "# scp as $user: $out; sshd: $(tail -n 3 "$d/sshd.log")" >&2
	app_stop $pid
	rm -f "$APP_DIR/$label.got"
	jq -cn --arg run "$label" --arg t0 "$t0" --arg t1 "$t1" \
		--argjson bytes $((APP_FILE_MB * 1000000)) \
		--argjson ok "$([ "$sha" = "$APP_SHA" ] && echo true || echo false)" \
		'{app: "scp", run: $run, sha256_ok: $ok,
		  bps: (if $ok then $bytes * 8 / (($t1 | tonumber) - ($t0 | tonumber))
			else null end)}' \
		>"$APP_DIR/$label.json"
	return $rc
}
