/* The module's syscall() (x86-64): glibc's, instruction for instruction, except that a
 * seccomp() call first goes to sl_seccomp_syscall (SeccompInterpose.cpp), which ends the
 * process's capture before the filter exists (libseccomp installs filters through syscall()).
 *
 * Why assembly: syscall() is how programs make raw clone calls, some with a new stack on which
 * they placed the address the child returns to. As in glibc, nothing runs in a child after the
 * system call but the error check and `ret`; a C function's frame would be unwound on the
 * child's empty stack. The error path sets errno in C (sl_syscall_failed), in the caller only.
 * Other architectures keep libc's syscall() (the prctl interposer still seals). */
#if defined(__x86_64__) && defined(__linux__)
    .text
    .globl syscall
    .type syscall, @function
    .p2align 4
syscall:
    .cfi_startproc
    endbr64
    cmpq $317, %rdi /* SYS_seccomp */
    je 1f
    movq %rdi, %rax
    movq %rsi, %rdi
    movq %rdx, %rsi
    movq %rcx, %rdx
    movq %r8, %r10
    movq %r9, %r8
    movq 8(%rsp), %r9
    syscall
    cmpq $-4095, %rax
    jae 2f
    ret
1:
    jmp sl_seccomp_syscall
2:
    movq %rax, %rdi
    jmp sl_syscall_failed
    .cfi_endproc
    .size syscall, .-syscall
#endif
    .section .note.GNU-stack, "", @progbits
