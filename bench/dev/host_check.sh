#!/usr/bin/env bash
# host_check.sh: tests the three checkers on a machine without a GPU. Builds the dev
# harness in host mode (-DMINI_HOST: "device" memory is host memory) with the fp32 CPU
# solutions of cpu_solutions.c, and checks that each right one passes every correctness
# case of its lab.yaml and each wrong one is caught, over a few seeds.
#   bash bench/dev/host_check.sh
set -eu
cd "$(dirname "$0")/../.."
B=${BUILD:-/tmp/memlabs_host}
mkdir -p "$B"
INC="-I grader/include -I labs/include"
CFLAGS="-std=c11 -O2 -Wall -Wextra -Wno-unused-parameter"
for lab in transpose softmax layernorm; do
    gcc $CFLAGS -c grader/labs/$lab.c $INC -o $B/$lab.o
    python3 bench/dev/labyaml.py labs/$lab/lab.yaml >$B/$lab.txt
done
gcc $CFLAGS -c bench/dev/cpu_solutions.c $INC -o $B/cpu.o
g++ -x c++ -std=c++17 -O2 -Wall -Wno-unused-parameter -DMINI_HOST $INC -c bench/dev/mem_labs.cu -o $B/mem.o
g++ -o $B/mem_host $B/mem.o $B/transpose.o $B/softmax.o $B/layernorm.o $B/cpu.o -lm

fail=0
check() { # lab solution expected-verdict seed
    got=$($B/mem_host $1 $B/$1.txt --cpu $2 --seed $4 | sed -n 's/^RESULT .*"verdict":"\([a-z_]*\)".*/\1/p')
    if [ "$got" = "$3" ]; then echo "ok   $1 $2 seed $4: $got"; else echo "FAIL $1 $2 seed $4: $got, want $3"; fail=1; fi
}
for seed in 1 2 3; do
    check transpose transpose_ok correct $seed
    check transpose transpose_square_only wrong $seed
    check softmax softmax_ok correct $seed
    check softmax softmax_nomax wrong $seed
    check softmax softmax_norescale wrong $seed
    check layernorm layernorm_ok correct $seed
    check layernorm layernorm_welford correct $seed
    check layernorm layernorm_plain_two_pass correct $seed
    check layernorm layernorm_naive wrong $seed
    check layernorm layernorm_no_eps wrong $seed
    check layernorm layernorm_unbiased wrong $seed
done
exit $fail
