; RUN: regalloc sgprs=48 vgprs=24
; With 24 vector registers there is no callee-saved one (v32..v63 are beyond the file): a vector value
; live across a call is spilled; SP stays put (frame lowering moves it past the frame, later).

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
; CHECK-LABEL: kernel @main frame_bytes=16 sgprs=33 spill_slots=1 vgprs=17 {
; CHECK:         v_add_u32 v16, v0, 1
; CHECK-NEXT:    scratch_store_b32 s32, v16, %stack.0
; CHECK-NEXT:    s_mov_b32 s0, 3
; CHECK-NEXT:    scratch_load_b32 v16, s32, %stack.0
; CHECK-NEXT:    p_copy v0, v16
; CHECK-NEXT:    s_call_b64 s[30:31], @f uses[s0, v0] defs[v0]
; CHECK-NEXT:    scratch_load_b32 v16, s32, %stack.0
; CHECK-NEXT:    v_add_u32 v0, v0, v16

; CHECK-LABEL: func @f frame_bytes=16 sgprs=39 spill_slots=1 vgprs=17 {
; CHECK:         p_copy v16, v0
; CHECK-NEXT:    scratch_store_b32 s32, v16, %stack.0
; CHECK:         s_call_b64 s[30:31], @g uses[v0] defs[v0]
; CHECK-NEXT:    scratch_load_b32 v16, s32, %stack.0
; CHECK-NEXT:    v_mad_u32 v0, v0, s38, v16
