"""benchmarks/llvm_pass_times.py: the passes of an LLVM timing report, by user seconds, each once, without the total."""

from benchmarks.llvm_pass_times import top_passes

REPORT = """   ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---
   6.7392 ( 51.2%)   0.0001 (  0.1%)   6.7393 ( 51.2%)   6.8000 ( 51.0%)  SLPVectorizerPass
   3.7935 ( 28.8%)   0.0001 (  0.1%)   3.7936 ( 28.8%)   3.8000 ( 28.5%)  InstCombinePass
   3.7935 ( 28.8%)   0.0001 (  0.1%)   3.7936 ( 28.8%)   3.8000 ( 28.5%)  InstCombinePass
   1.1218 ( 44.6%)   0.0011 (  3.8%)   1.1229 ( 44.1%)   3.1973 ( 48.3%)  Post RA top-down list latency scheduler
  13.1600 (100.0%)   0.0300 (100.0%)  13.1900 (100.0%)  13.3000 (100.0%)  Total
"""


def test_top_passes_names_each_pass_once_by_user_seconds() -> None:
    assert top_passes(REPORT, 2) == [(6.7392, "SLPVectorizerPass"), (3.7935, "InstCombinePass")]
    assert top_passes(REPORT, 9)[-1] == (1.1218, "Post RA top-down list latency scheduler")
