/* The module's vfork (x86-64): a real vfork, the child sharing the parent's memory and stack
 * until it execs or exits, as without the module. Serving vfork with fork instead cost every
 * child a copy of its parent's page tables and a copy-on-write fault for each page either one
 * touched before the exec (about 44 faults per child of a shell), and broke programs that pass
 * a result back through the shared memory.
 *
 * Why assembly: the child returns from vfork on the parent's stack, so vfork must leave no frame
 * of its own there. As glibc's __vfork does, the return address is kept in a register across
 * the system call and pushed back after it; then each side jumps (no call, no frame) to a C
 * function that returns to vfork's caller: sl_vfork_child_started in the child, which marks the
 * thread as a vfork child (ProcessWriter::inVforkChild), and sl_vfork_parent_resumed in the
 * parent, which runs when the child has exec'd or exited: it clears the mark, records the child
 * and sets errno on failure (its arguments: the system call's result, the caller's stack
 * pointer).
 *
 * With a shadow stack (CET), shared with the child, vfork is served by fork
 * (sl_vfork_as_fork): rdsspq leaves %rsi at 0 where shadow stacks are off or unsupported. So is
 * a vfork called by a vfork child (sl_vfork_allowed: not allowed by POSIX, and the inner
 * parent's resumption would unmark the outer child).
 * Other architectures define vfork in ProcessInterpose.cpp. */
#if defined(__x86_64__) && defined(__linux__)
    .text
    .globl vfork
    .type vfork, @function
    .p2align 4
vfork:
    .cfi_startproc
    endbr64
    xorl %esi, %esi
    rdsspq %rsi
    testq %rsi, %rsi
    jnz 2f
    subq $8, %rsp /* the stack aligned for a call */
    .cfi_adjust_cfa_offset 8
    call sl_vfork_allowed
    addq $8, %rsp
    .cfi_adjust_cfa_offset -8
    testl %eax, %eax
    jz 2f
    popq %rdi
    .cfi_adjust_cfa_offset -8
    .cfi_register %rip, %rdi
    movl $58, %eax /* __NR_vfork */
    syscall
    pushq %rdi
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %rip, 0
    testq %rax, %rax
    jz 1f
    movq %rax, %rdi
    leaq 8(%rsp), %rsi /* the caller's stack pointer: the child used what is below it */
    jmp sl_vfork_parent_resumed
1:
    jmp sl_vfork_child_started
2:
    jmp sl_vfork_as_fork
    .cfi_endproc
    .size vfork, .-vfork
#endif
    .section .note.GNU-stack, "", @progbits
