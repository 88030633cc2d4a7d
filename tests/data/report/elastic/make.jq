# tests/data/report/elastic/trials.jsonl from ../lifecycle/trials.jsonl
# (jq -c -f make.jq ../lifecycle/trials.jsonl >trials.jsonl): README.md there.
# the base: lc-series (tests/data/report/lifecycle) without its steps
def MiB: . * 1048576;
def host($before; $after; $plugged; $unplugged; $back):
  {source: "proc", measured_by: "backend",
   before: {qemu_rss_bytes: (600 | MiB), backend_bytes: {"1": ($before | MiB)}},
   after: {qemu_rss_bytes: (600 - $back | MiB), backend_bytes: {"1": ($after | MiB)}},
   plugged_before_bytes: ($plugged | MiB), settle_s: 0.5,
   unplugged_bytes: ($unplugged | MiB), reclaimed_bytes: ($back | MiB),
   reclaimed_of_unplugged: ($back / $unplugged)};
def el($m; $a; $ok; $secs; $req; $mb; $ma): {mechanism: $m, action: $a, ok: $ok, seconds: $secs,
  requested_bytes: ($req | MiB), memtotal_before_bytes: ($mb | MiB), memtotal_after_bytes: ($ma | MiB)};
def step($k; $line; $t; $secs; $ok): {step: $k, line: $line, t: $t, seconds: $secs, ok: $ok};
def trial($id; $mech; $pinned; $verdict; $reason; $steps):
  . as $b | $b | .trial = $id | .parameters = {mechanism: $mech, pinned: $pinned}
  | .verdict = $verdict | .reason = $reason | .steps = $steps | .scenario = "scenarios/compare/elasticity.yaml"
  | .summary |= (del(.host_reclaimed_ratio, .host_reclaimed_of_reclaimable, .host_reclaimable_bytes)
      | .host_reclaimed_bytes = ([$steps[] | .host.reclaimed_bytes // empty] | add // 0)
      | .host_shrinks = ([$steps[] | select(.host.unplugged_bytes) ] | length));
def hostile: "<script>alert(\"x\")</script> it's \"quoted\" & <b>bold</b>\nsecond line `id` $HOME #7";
select(.trial == "lc-series") | del(.steps) | . as $b |
[
  ($b | trial("el-vm-no"; "virtio-mem"; "no"; "pass"; "";
    [step("resize"; 14; 5; 1.2; true) + {requested_bytes: 512 | MiB, reached_bytes: 512 | MiB, converged: true,
       deadline_s: 60, seconds_to_converge: 0.4, host: host(600; 88; 1024; 512; 512)}])),
  ($b | trial("el-vm-yes"; "virtio-mem"; "yes"; "fail"; "step 2 (vmem v1): refused: " + hostile;
    [step("resize"; 14; 5; 61; true) + {requested_bytes: 512 | MiB, reached_bytes: 768 | MiB, converged: false,
       deadline_s: 60, seconds_to_converge: 60, note: "stopped at 768 MiB", host: host(1000; 800; 1024; 256; 200)},
     step("vmem"; 16; 67; 0.05; false) + {id: "v1", error: ("refused: " + hostile),
       elastic: (el("virtio-mem"; "attach"; false; 0.05; 256; 1536; 1536) + {refused: hostile})}])),
  ($b | trial("el-balloon-no"; "balloon"; "no"; "pass"; "";
    [step("balloon"; 12; 5; 2.4; true) + {host: host(900; 402; 1536; 512; 498),
       elastic: (el("balloon"; "target"; true; 2.3; -512; 1536; 1024) +
         {actual_before_bytes: 1536 | MiB, actual_after_bytes: 1024 | MiB, free_page_reporting: true})}])),
  ($b | trial("el-balloon-yes"; "balloon"; "yes"; "fail"; "step 1 (balloon): the balloon stopped at 1200 MiB, 1024 asked";
    [step("balloon"; 12; 5; 30; false) + {error: "the balloon stopped at 1200 MiB, 1024 asked",
       host: host(900; 600; 1536; 336; 300),
       elastic: (el("balloon"; "target"; false; 30; -512; 1536; 1200) +
         {actual_before_bytes: 1536 | MiB, actual_after_bytes: 1200 | MiB, free_page_reporting: false})}])),
  ($b | trial("el-dimm-no"; "dimm"; "no"; "fail"; "step 3 (hugepages): allocated 100 of 128 hugepages";
    [step("dimm"; 10; 4; 1.6; true) + {id: "d0", elastic: (el("dimm"; "attach"; true; 1.5; 512; 1024; 1536) + {alias: "dimm0", slot: 0})},
     step("dimm"; 12; 7; 3.1; true) + {id: "d0", host: host(512; 32; 1536; 512; 480),
       elastic: (el("dimm"; "detach"; true; 3.0; -512; 1536; 1024) + {alias: "dimm0", slot: 0, removed: true})},
     step("hugepages"; 14; 11; 4.2; false) + {error: "allocated 100 of 128 hugepages",
       elastic: (el("hugetlb"; "alloc"; false; 4.2; 256; 1024; 1024) +
         {page_bytes: 2 | MiB, requested_pages: 128, allocated_pages: 100, compaction: {compact_stall: 12, compact_fail: 3, compact_success: 9}})}])),
  ($b | trial("el-dimm-yes"; "dimm"; "yes"; "fail"; "step 2 (dimm d0): the detach did not complete in 30 s: memory40 going-offline";
    [step("dimm"; 10; 4; 1.6; true) + {id: "d0", elastic: (el("dimm"; "attach"; true; 1.5; 512; 1024; 1536) + {alias: "dimm0", slot: 0})},
     step("dimm"; 12; 7; 30.2; false) + {id: "d0", error: "the detach did not complete in 30 s: memory40 going-offline",
       host: host(512; 500; 1536; 128; 12),
       elastic: (el("dimm"; "detach"; false; 30; -512; 1536; 1408) + {alias: "dimm0", slot: 0, removed: false,
         range_blocks: [{block: 40, state: "going-offline", valid_zones: "Movable"},
                  {block: 41, state: "online", valid_zones: "Movable"},
                  {block: 42, state: "online", valid_zones: hostile}], pinned_blocks: [40, 41, 42]})}]))
] | .[]
