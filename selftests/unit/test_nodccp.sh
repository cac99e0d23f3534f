#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tonic.ko needs nothing of DCCP (removed upstream in 6.16): it calls no
# DCCP export, none of the kernel's inet_* functions that insert into or
# remove from connection tables (without DCCP they take TCP's tables, see
# tcp_or_dccp_get_hashinfo()), and kmod/ never tests CONFIG_IP_DCCP.  The
# build against a kernel without DCCP is `make compat` (about a minute).
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

KO=${TONIC_KO:-tonic.ko}
deny=(-e 'secure_dccp.*' -e 'dccp_.*' -e 'inet_dccp_.*')
for f in inet_csk_get_port inet_hash inet6_hash __inet_hash inet_unhash \
	 inet_put_port __inet_inherit_port inet_ehash_nolisten \
	 inet_hash_connect inet6_hash_connect inet_bhash2_update_saddr \
	 inet_bhash2_reset_saddr inet_csk_reqsk_queue_hash_add \
	 inet_csk_reqsk_queue_drop inet_csk_reqsk_queue_drop_and_put \
	 inet_csk_complete_hashdance; do
	deny+=(-e "$f")
done

tap_plan 3
undef=$(nm -u "$KO" 2>/dev/null | awk '{print $2}')
tap_check "$KO is built" test -n "$undef"
used=$(grep -x "${deny[@]}" <<<"$undef" | tr '\n' ' ')
echo "# table or DCCP functions used: ${used:-none}"
tap_result "$([ -z "$used" ] && echo 0 || echo 1)" \
	"no DCCP export, no inet_* table insert/remove of the kernel's"
tap_check "nothing in kmod/ depends on CONFIG_IP_DCCP" \
	bash -c "! grep -rn --include='*.[ch]' CONFIG_IP_DCCP kmod"
tap_done
