# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Helpers the bench's guest scripts share (sourced).

# gid_of IBDEV: the index of its RoCE v2 IPv4 GID, waiting up to 5 s for it.
gid_of() {
	local d=/sys/class/infiniband/$1/ports/1 f v t i
	for i in $(seq 50); do
		for f in "$d"/gids/*; do
			read -r v <"$f" 2>/dev/null || continue
			case $v in 0000:0000:0000:0000:0000:ffff:*) ;; *) continue ;; esac
			read -r t <"$d/gid_attrs/types/${f##*/}" 2>/dev/null
			[ "$t" = "RoCE v2" ] && { echo "${f##*/}"; return 0; }
		done
		sleep 0.1
	done
	return 1
}
