; RUN: lower sgprs=48 vgprs=24
; Pseudo lowering: copies become 32-bit moves, a word already in place is none, p_undef goes.

kernel @copies {
entry:
  p_undef v[4:5]
  p_copy v[4:5], s[6:7]
  p_copy s8, s8
  p_copy s[10:11], 0x100000002
  p_copy v6, 1.5
  p_join v[8:11], v0, v1, s[4:5]
  p_split v12, v13, v[2:3]
  s_endpgm
}
; CHECK-LABEL: kernel @copies frame_bytes=0 {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    v_mov_b32 v4, s6
; CHECK-NEXT:    v_mov_b32 v5, s7
; CHECK-NEXT:    s_mov_b32 s10, 2
; CHECK-NEXT:    s_mov_b32 s11, 1
; CHECK-NEXT:    v_mov_b32 v6, 1069547520
; CHECK-NEXT:    v_mov_b32 v8, v0
; CHECK-NEXT:    v_mov_b32 v9, v1
; CHECK-NEXT:    v_mov_b32 v10, s4
; CHECK-NEXT:    v_mov_b32 v11, s5
; CHECK-NEXT:    v_mov_b32 v12, v2
; CHECK-NEXT:    v_mov_b32 v13, v3
; CHECK-NEXT:    s_endpgm

; -----
; Overlapping parts: each source is read before it is overwritten; a cycle goes through a free
; register of the spill pool (s40.., v16..).

kernel @overlap {
entry:
  p_join v[2:3], v1, v2
  p_join s[4:5], s5, s4
  p_split v1, v0, v[0:1]
  s_endpgm
}
; CHECK-LABEL: kernel @overlap frame_bytes=0 {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    v_mov_b32 v3, v2
; CHECK-NEXT:    v_mov_b32 v2, v1
; CHECK-NEXT:    s_mov_b32 s40, s4
; CHECK-NEXT:    s_mov_b32 s4, s5
; CHECK-NEXT:    s_mov_b32 s5, s40
; CHECK-NEXT:    v_mov_b32 v16, v1
; CHECK-NEXT:    v_mov_b32 v1, v0
; CHECK-NEXT:    v_mov_b32 v0, v16
; CHECK-NEXT:    s_endpgm

; -----
; A cycle that names every pool register is exchanged with xors (scalar: scc written next).

kernel @full {
entry:
  p_join v[16:23], v17, v16, v18, v19, v20, v21, v22, v23
  p_join s[40:47], s41, s40, s42, s43, s44, s45, s46, s47
  s_cmp_eq_u32 s0, 0
  s_endpgm
}
; CHECK-LABEL: kernel @full frame_bytes=0 {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    v_xor_b32 v16, v16, v17
; CHECK-NEXT:    v_xor_b32 v17, v16, v17
; CHECK-NEXT:    v_xor_b32 v16, v16, v17
; CHECK-NEXT:    s_xor_b32 s40, s40, s41
; CHECK-NEXT:    s_xor_b32 s41, s40, s41
; CHECK-NEXT:    s_xor_b32 s40, s40, s41
; CHECK-NEXT:    s_cmp_eq_u32 s0, 0
