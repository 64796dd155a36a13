; RUN: regalloc sgprs=128 vgprs=256
; Default files: no spill, a register reused by the value an instruction writes from its last read,
; p_join/p_split/p_copy parts placed where the pseudo is no move, pairs even and tuples 4-aligned.

kernel @straight {
entry:
  s_load_b64 %s1:64, s[0:1], 0
  v_lshl_b32 %v1, v0, 2
  v_mov_b32 %v2, 0
  p_join %v3:64, %v1, %v2
  v_add_u64 %v4:64, %s1:64, %v3:64
  global_load_b32 %v5, %v4:64, 0
  v_mul_lo_u32 %v6, %v5, %v5
  global_store_b32 %v4:64, %v6, 0
  s_endpgm
}
; CHECK-LABEL: kernel @straight frame_bytes=0 sgprs=2 spill_slots=0 vgprs=3 {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    s_load_b64 s[0:1], s[0:1], 0
; CHECK-NEXT:    v_lshl_b32 v0, v0, 2
; CHECK-NEXT:    v_mov_b32 v1, 0
; CHECK-NEXT:    p_join v[0:1], v0, v1
; CHECK-NEXT:    v_add_u64 v[0:1], s[0:1], v[0:1]
; CHECK-NEXT:    global_load_b32 v2, v[0:1], 0
; CHECK-NEXT:    v_mul_lo_u32 v2, v2, v2
; CHECK-NEXT:    global_store_b32 v[0:1], v2, 0
; CHECK-NEXT:    s_endpgm

; -----
; s2 (the group id) stays live until its read: the 128-bit load may not take s[0:3].

kernel @tuple {
entry:
  s_load_b128 %s2:128, s[0:1], 16
  s_mul_i32 %s1, s2, 64
  p_split %s4:64, %s5:64, %s2:128
  s_add_u64 %s6:64, %s4:64, %s5:64
  v_mov_b32 %v1, %s1
  global_store_b32 %s6:64, %v1, 0
  s_endpgm
}
; CHECK-LABEL: kernel @tuple
; CHECK-NEXT:  entry:
; CHECK-NEXT:    s_load_b128 s[4:7], s[0:1], 16
; CHECK-NEXT:    s_mul_i32 s0, s2, 64
; CHECK-NEXT:    p_split s[4:5], s[6:7], s[4:7]
; CHECK-NEXT:    s_add_u64 s[2:3], s[4:5], s[6:7]
; CHECK-NEXT:    v_mov_b32 v0, s0

; -----
; A value copied into an argument register takes it when it is free there.

kernel @hint {
entry:
  v_add_u32 %v1, v0, 3
  p_copy v1, %v1
  v_mov_b32 %v2, v1
  global_store_b32 0, %v2, 0
  s_endpgm
}
; CHECK-LABEL: kernel @hint
; CHECK:         v_add_u32 v1, v0, 3
; CHECK-NEXT:    p_copy v1, v1
