/* bench.h - memhp-pin bench: the gup_test long-term pin benchmark. */
#ifndef MHP_BENCH_H
#define MHP_BENCH_H

int cmd_bench(int argc, char **argv);

#endif
