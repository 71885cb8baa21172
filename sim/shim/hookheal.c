// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Keeping our mmap/munmap interposers reachable when a program patches
 * function bodies.  UCX's memory hooks ("bistro" mode, its default)
 * overwrite the first bytes of the process' mmap and munmap - which are
 * ours, the first definitions in the lookup order - with a jump to their
 * hook, which then makes the system call itself: the provider's mapping
 * of the device would reach the real kernel and fail (ENODEV).
 *
 * Before every device command (a mapping is always preceded by one: the
 * doorbell and clock pages by GET_CONTEXT, a CMB window by CREATE_QP) the
 * shim checks its functions' first bytes (stubs of known content, below).  A recognised patch - an
 * absolute or relative jump - is undone and its target remembered: our
 * interposer then serves the device and hands every other call to that
 * hook, so the patcher still sees each mapping it patched for.  An
 * unknown change is left alone (and traced).
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/trace.h"
#include "shim.h"

#define PROLOGUE 16

/*
 * The exported mmap, mmap64 and munmap are 16-byte stubs that jump to
 * the interposers (hooks_io.c).  Their bytes are known, whatever ran
 * before us: a program's constructor may patch them before ours runs.
 * Each also has a hidden name, ishim_stub_<name>, for the table below:
 * the exported name may resolve elsewhere (a sanitizer runtime preloaded
 * ahead of us intercepts mmap too).
 */
#define STUB(name, body)                 \
	".globl " #name "\n"             \
	".type " #name ",@function\n"    \
	".globl ishim_stub_" #name "\n"  \
	".hidden ishim_stub_" #name "\n" \
	".p2align 4\n" #name ":\n"       \
	"ishim_stub_" #name ":\n"        \
	"	jmp " #body "\n"         \
	"	.fill 11,1,0xcc\n"             \
	".size " #name ",.-" #name "\n"
__asm__(".text\n" STUB(mmap, ishim_mmap_body) STUB(mmap64, ishim_mmap64_body)
		STUB(munmap, ishim_munmap_body));

extern uint8_t ishim_stub_mmap[] ISHIM_HIDDEN;
extern uint8_t ishim_stub_mmap64[] ISHIM_HIDDEN;
extern uint8_t ishim_stub_munmap[] ISHIM_HIDDEN;

struct healed {
	const char *name;
	uint8_t *fn; /* the stub */
	void *body; /* where it jumps */
	void *chain; /* the patcher's hook, once healed */
};

static struct healed fns[] = {
	{ "mmap", ishim_stub_mmap, (void *)ishim_mmap_body, NULL },
	{ "mmap64", ishim_stub_mmap64, (void *)ishim_mmap64_body, NULL },
	{ "munmap", ishim_stub_munmap, (void *)ishim_munmap_body, NULL },
};

#define NFNS (sizeof(fns) / sizeof(fns[0]))

static pthread_mutex_t heal_lock = PTHREAD_MUTEX_INITIALIZER;

/* The stub's bytes as built: jmp rel32 to its body, int3 padding. */
static void stub_bytes(const struct healed *h, uint8_t out[PROLOGUE])
{
	int32_t rel = (int32_t)((intptr_t)h->body - (intptr_t)(h->fn + 5));

	memset(out, 0xcc, PROLOGUE);
	out[0] = 0xe9;
	memcpy(out + 1, &rel, sizeof(rel));
}

/* The destination of a jump at the start of 'p', or NULL. */
static void *jump_target(const uint8_t *p)
{
	uint64_t abs;
	int32_t rel;

	/* movabs $imm64, %rax; jmp *%rax */
	if (p[0] == 0x48 && p[1] == 0xb8 && p[10] == 0xff && p[11] == 0xe0) {
		memcpy(&abs, p + 2, 8);
		return (void *)(uintptr_t)abs;
	}
	/* movabs $imm64, %r11; jmp *%r11 */
	if (p[0] == 0x49 && p[1] == 0xbb && p[10] == 0x41 && p[11] == 0xff &&
	    p[12] == 0xe3) {
		memcpy(&abs, p + 2, 8);
		return (void *)(uintptr_t)abs;
	}
	/* jmp *0(%rip) followed by the address */
	if (p[0] == 0xff && p[1] == 0x25 && !p[2] && !p[3] && !p[4] && !p[5]) {
		memcpy(&abs, p + 6, 8);
		return (void *)(uintptr_t)abs;
	}
	/* jmp rel32 */
	if (p[0] == 0xe9) {
		memcpy(&rel, p + 1, 4);
		return (void *)(p + 5 + rel);
	}
	return NULL;
}

static int restore(struct healed *h, const uint8_t *good)
{
	uintptr_t page = (uintptr_t)h->fn & ~(uintptr_t)4095;
	size_t len = (uintptr_t)h->fn + PROLOGUE - page;

	/* raw syscalls: mprotect may be hooked as well */
	if (syscall(SYS_mprotect, page, len,
		    PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	memcpy(h->fn, good, PROLOGUE);
	__builtin___clear_cache((char *)h->fn, (char *)h->fn + PROLOGUE);
	syscall(SYS_mprotect, page, len, PROT_READ | PROT_EXEC);
	return 0;
}

void ishim_hooks_heal(void)
{
	pthread_mutex_lock(&heal_lock);
	for (size_t i = 0; i < NFNS; i++) {
		struct healed *h = &fns[i];
		uint8_t good[PROLOGUE];
		void *target;

		stub_bytes(h, good);
		if (!memcmp(h->fn, good, PROLOGUE))
			continue;
		target = jump_target(h->fn);
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_FD,
				   "%s patched by the program: jump to %p%s",
				   h->name, target,
				   target ? ", restored and chained" :
					    ", not recognised: left alone");
		if (!target || target == h->fn || target == h->body)
			continue;
		if (!restore(h, good))
			__atomic_store_n(&h->chain, target, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&heal_lock);
}

ISHIM_RUNTIME_SAFE void *ishim_hooks_chain(unsigned int which)
{
	return which < NFNS ?
		       __atomic_load_n(&fns[which].chain, __ATOMIC_ACQUIRE) :
		       NULL;
}
