# tests/fuzz.sh - sourced by tests/run.sh (make check): each libFuzzer target
# of tests/fuzz/ (ASan + UBSan) runs its regression inputs, then fuzzes for
# MHL_FUZZ_SECONDS s over its corpus (3 in the fast tier, 60 in the full); a crash fails its check, and its
# input and report stay in $work/fuzz/. `make fuzz FUZZ_SECONDS=600` runs them
# longer. Uses run.sh's `ok` and $work.

plan 12
echo "# fuzz (tests/fuzz/: libFuzzer, ASan + UBSan; make fuzz runs them longer)"
# The fast tier keeps each brief (3 s, at most 20); the full tier gives each a minute.
if full; then
	fuzz_s=${MHL_FUZZ_SECONDS:-60}
else
	fuzz_s=${MHL_FUZZ_SECONDS:-3}
	[ "$fuzz_s" -le 20 ] 2>/dev/null || fuzz_s=20
fi
ok "fuzz: the targets build (clang -fsanitize=fuzzer,address,undefined)" \
	make --no-print-directory -s -j"$(nproc)" fuzz-build
for fuzz_t in $(tools/fuzz.sh --list); do
	ok "fuzz $fuzz_t: $fuzz_s s over its corpus and regression inputs, no crash" \
		tools/fuzz.sh --check --out "$work/fuzz" --seconds "$fuzz_s" "$fuzz_t"
done
unset fuzz_s fuzz_t
