// System calls the hostile test extension makes that Swift cannot (variadic syscall(2)).
#ifndef CHOSTILECALLS_H
#define CHOSTILECALLS_H
/// io_uring_setup(8, params): a file descriptor, or -1 with errno.
int hostile_io_uring_setup(void);
/// ptrace(PTRACE_ATTACH, pid): 0 or -1 with errno.
int hostile_ptrace_attach(int pid);
#endif
