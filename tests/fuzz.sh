# tests/fuzz.sh - sourced by tests/run.sh (make check): each libFuzzer target
# of tests/fuzz/ (ASan + UBSan) runs its regression inputs, then fuzzes for
# MHL_FUZZ_SECONDS (8) s over its corpus; a crash fails its check, and its
# input and report stay in $work/fuzz/. `make fuzz FUZZ_SECONDS=600` runs them
# longer. Uses run.sh's `ok` and $work.

plan 10
echo "# fuzz (tests/fuzz/: libFuzzer, ASan + UBSan; make fuzz runs them longer)"
fuzz_s=${MHL_FUZZ_SECONDS:-8}
[ "$fuzz_s" -le 20 ] 2>/dev/null || fuzz_s=20	# make check keeps each brief
ok "fuzz: the targets build (clang -fsanitize=fuzzer,address,undefined)" \
	make --no-print-directory -s -j"$(nproc)" fuzz-build
for fuzz_t in $(tools/fuzz.sh --list); do
	ok "fuzz $fuzz_t: $fuzz_s s over its corpus and regression inputs, no crash" \
		tools/fuzz.sh --check --out "$work/fuzz" --seconds "$fuzz_s" "$fuzz_t"
done
unset fuzz_s fuzz_t
