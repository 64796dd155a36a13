; RUN: regalloc sgprs=128 vgprs=256
; Values live across a call sit in callee-saved registers (v32.., s36..); a func saves the ones it
; writes at entry and restores them before each return, the return address moved to s[30:31]
; first; the stack pointer does not move (frame lowering moves it once, later). A kernel saves nothing.

kernel @main {
entry:
  v_add_u32 %v1, v0, 1
  s_mov_b32 s0, 3
  p_copy v0, %v1
  s_call_b64 s[30:31], @f uses[s0, v0] defs[v0]
  v_add_u32 %v2, v0, %v1
  global_store_b32 0, %v2, 0
  s_endpgm
}

func @f {
entry:
  p_copy %s1:64, s[30:31]
  p_copy %v1, v0
  p_copy %s2, s0
  s_call_b64 s[30:31], @g uses[v0] defs[v0]
  v_mad_u32 %v2, v0, %s2, %v1
  p_copy v0, %v2
  s_setpc_b64 %s1:64 uses[v0]
}

func @g {
entry:
  v_mul_lo_u32 v0, v0, v0
  s_setpc_b64 s[30:31] uses[v0]
}
; CHECK-LABEL: kernel @main frame_bytes=0 sgprs=32 spill_slots=0 vgprs=33 {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    v_add_u32 v32, v0, 1
; CHECK-NEXT:    s_mov_b32 s0, 3
; CHECK-NEXT:    p_copy v0, v32
; CHECK-NEXT:    s_call_b64 s[30:31], @f uses[s0, v0] defs[v0]
; CHECK-NEXT:    v_add_u32 v0, v0, v32

; CHECK-LABEL: func @f frame_bytes=16 sgprs=39 spill_slots=0 vgprs=33 {
; CHECK:       entry:
; CHECK-NEXT:    s_scratch_store_b32 s36, s32, %stack.0
; CHECK-NEXT:    s_scratch_store_b32 s37, s32, %stack.1
; CHECK-NEXT:    s_scratch_store_b32 s38, s32, %stack.2
; CHECK-NEXT:    scratch_store_b32 s32, v32, %stack.3
; CHECK-NEXT:    p_copy s[36:37], s[30:31]
; CHECK-NEXT:    p_copy v32, v0
; CHECK-NEXT:    p_copy s38, s0
; CHECK-NEXT:    s_call_b64 s[30:31], @g uses[v0] defs[v0]
; CHECK-NEXT:    v_mad_u32 v0, v0, s38, v32
; CHECK-NEXT:    p_copy v0, v0
; CHECK-NEXT:    s_mov_b64 s[30:31], s[36:37]
; CHECK-NEXT:    s_scratch_load_b32 s36, s32, %stack.0
; CHECK-NEXT:    s_scratch_load_b32 s37, s32, %stack.1
; CHECK-NEXT:    s_scratch_load_b32 s38, s32, %stack.2
; CHECK-NEXT:    scratch_load_b32 v32, s32, %stack.3
; CHECK-NEXT:    s_setpc_b64 s[30:31] uses[v0]

; CHECK-LABEL: func @g frame_bytes=0 sgprs=32 spill_slots=0 vgprs=1 {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    v_mul_lo_u32 v0, v0, v0
