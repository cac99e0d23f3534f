/* SPDX-License-Identifier: GPL-2.0 */
/* The shim's BPF object (mk/shim.mk), embedded for offload.c. */
	.section .rodata
	.balign 8
	.global tonic_shim_obj
tonic_shim_obj:
	.incbin SHIM_OBJ
	.global tonic_shim_obj_end
tonic_shim_obj_end:
	.section .note.GNU-stack,"",@progbits
