# Sourced by the shell tests that need a board: a real OpenSSH server on a free 127.0.0.1 port for the current user.
#   start_loopback_sshd DIR   makes DIR/host_key, DIR/client_key (authorized), DIR/sshd_config; starts sshd in the
#                             background and waits until it listens. Sets SSHD_PORT and SSHD_PID (the caller kills it).
#                             $SSHD_EXTRA_CONFIG (optional) is appended to the config, e.g. "SetEnv NAME=VALUE" for
#                             what a board's environment would hold.
start_loopback_sshd() {
  local dir=$1
  [ -x /usr/sbin/sshd ] || { echo "no /usr/sbin/sshd (Debian: openssh-server, see scripts/install-deps.sh)" >&2; return 1; }
  ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"; ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key"
  cp "$dir/client_key.pub" "$dir/authorized_keys"
  SSHD_PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p /run/sshd
  cat > "$dir/sshd_config" <<CFG
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile none
UsePAM no
StrictModes no
PermitRootLogin yes
PasswordAuthentication yes
KbdInteractiveAuthentication no
AuthorizedKeysFile $dir/authorized_keys
Subsystem sftp internal-sftp
MaxStartups 50
${SSHD_EXTRA_CONFIG:-}
CFG
  /usr/sbin/sshd -D -f "$dir/sshd_config" -E "$dir/sshd.log" & SSHD_PID=$!
  local _
  for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$SSHD_PORT") 2>/dev/null && return 0; sleep 0.1; done
  echo "sshd did not listen on 127.0.0.1:$SSHD_PORT: $(cat "$dir/sshd.log")" >&2
  return 1
}
