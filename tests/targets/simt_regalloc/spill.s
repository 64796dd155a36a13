; RUN: regalloc sgprs=48 vgprs=24
; The smallest files the ABI allows (16 vector and 35 scalar registers to allocate, 8 reserved for
; reloads in each file): values spill to frame slots, reload just before each read into the pool
; (v16..v23, s40..s47), different sources into different registers, and store just after each write.

kernel @vspill {
entry:
  v_add_u32 %v1, v0, 1
  v_add_u32 %v2, v0, 2
  v_add_u32 %v3, v0, 3
  v_add_u32 %v4, v0, 4
  v_add_u32 %v5, v0, 5
  v_add_u32 %v6, v0, 6
  v_add_u32 %v7, v0, 7
  v_add_u32 %v8, v0, 8
  v_add_u32 %v9, v0, 9
  v_add_u32 %v10, v0, 10
  v_add_u32 %v11, v0, 11
  v_add_u32 %v12, v0, 12
  v_add_u32 %v13, v0, 13
  v_add_u32 %v14, v0, 14
  v_add_u32 %v15, v0, 15
  v_add_u32 %v16, v0, 16
  v_add_u32 %v17, v0, 17
  v_add_u32 %v18, v0, 18
  v_mad_u32 %v20, %v1, %v2, %v3
  v_mad_u32 %v20, %v20, %v4, %v5
  v_mad_u32 %v20, %v20, %v6, %v7
  v_mad_u32 %v20, %v20, %v8, %v9
  v_mad_u32 %v20, %v20, %v10, %v11
  v_mad_u32 %v20, %v20, %v12, %v13
  v_mad_u32 %v20, %v20, %v14, %v15
  v_mad_u32 %v20, %v20, %v16, %v17
  v_mad_u32 %v20, %v20, %v18, %v17
  global_store_b32 0, %v20, 0
  s_endpgm
}
; CHECK-LABEL: kernel @vspill frame_bytes=16 sgprs=33 spill_slots=2 vgprs=18 {
; CHECK-NEXT:    %stack.0 = slot 4, align 4
; CHECK-NEXT:    %stack.1 = slot 4, align 4
; CHECK-NEXT:  entry:
; CHECK-NEXT:    v_add_u32 v16, v0, 1
; CHECK-NEXT:    scratch_store_b32 s32, v16, %stack.0
; CHECK-NEXT:    v_add_u32 v16, v0, 2
; CHECK-NEXT:    scratch_store_b32 s32, v16, %stack.1
; CHECK-NEXT:    v_add_u32 v3, v0, 3
; CHECK:         v_add_u32 v0, v0, 18
; CHECK-NEXT:    scratch_load_b32 v16, s32, %stack.0
; CHECK-NEXT:    scratch_load_b32 v17, s32, %stack.1
; CHECK-NEXT:    v_mad_u32 v3, v16, v17, v3
; CHECK-NEXT:    v_mad_u32 v3, v3, v4, v5

; -----
; 128-bit tuples spill and reload whole, into a 4-aligned place of the pool.

kernel @wide {
entry:
  global_load_b128 %v1:128, 0, 0
  global_load_b128 %v2:128, 0, 16
  global_load_b128 %v3:128, 0, 32
  global_load_b128 %v4:128, 0, 48
  global_load_b128 %v5:128, 0, 64
  p_split %v11, %v12, %v13, %v14, %v1:128
  p_split %v21, %v22, %v23, %v24, %v2:128
  p_join %v30:128, %v11, %v22, %v13, %v24
  global_store_b128 0, %v30:128, 0
  global_store_b128 0, %v3:128, 0
  global_store_b128 0, %v4:128, 0
  global_store_b128 0, %v5:128, 0
  global_store_b128 0, %v1:128, 0
  s_endpgm
}
; CHECK-LABEL: kernel @wide frame_bytes=32 sgprs=33 spill_slots=2 vgprs=20 {
; CHECK-NEXT:    %stack.0 = slot 16, align 16
; CHECK-NEXT:    %stack.1 = slot 16, align 16
; CHECK-NEXT:  entry:
; CHECK-NEXT:    global_load_b128 v[0:3], 0, 0
; CHECK-NEXT:    global_load_b128 v[4:7], 0, 16
; CHECK-NEXT:    global_load_b128 v[16:19], 0, 32
; CHECK-NEXT:    scratch_store_b128 s32, v[16:19], %stack.1
; CHECK:         global_store_b128 0, v[8:11], 0
; CHECK-NEXT:    scratch_load_b128 v[16:19], s32, %stack.1
; CHECK-NEXT:    global_store_b128 0, v[16:19], 0

; -----
; Scalar values spill with s_scratch_* (lane 0's slot, whatever exec holds); a pair whole.

kernel @sspill {
entry:
  s_load_b64 %s100:64, s[0:1], 0
  s_add_u32 %s1, s2, 0
  s_add_u32 %s2, s2, 1
  s_add_u32 %s3, s2, 2
  s_add_u32 %s4, s2, 3
  s_add_u32 %s5, s2, 4
  s_add_u32 %s6, s2, 5
  s_add_u32 %s7, s2, 6
  s_add_u32 %s8, s2, 7
  s_add_u32 %s9, s2, 8
  s_add_u32 %s10, s2, 9
  s_add_u32 %s11, s2, 10
  s_add_u32 %s12, s2, 11
  s_add_u32 %s13, s2, 12
  s_add_u32 %s14, s2, 13
  s_add_u32 %s15, s2, 14
  s_add_u32 %s16, s2, 15
  s_add_u32 %s17, s2, 16
  s_add_u32 %s18, s2, 17
  s_add_u32 %s19, s2, 18
  s_add_u32 %s20, s2, 19
  s_add_u32 %s21, s2, 20
  s_add_u32 %s22, s2, 21
  s_add_u32 %s23, s2, 22
  s_add_u32 %s24, s2, 23
  s_add_u32 %s25, s2, 24
  s_add_u32 %s26, s2, 25
  s_add_u32 %s27, s2, 26
  s_add_u32 %s28, s2, 27
  s_add_u32 %s29, s2, 28
  s_add_u32 %s30, s2, 29
  s_add_u32 %s31, s2, 30
  s_add_u32 %s32, s2, 31
  s_add_u32 %s33, s2, 32
  s_add_u32 %s34, s2, 33
  s_add_u32 %s35, s2, 34
  s_add_u32 %s36, s2, 35
  s_mov_b32 %s50, 0
  s_add_u32 %s50, %s50, %s1
  s_add_u32 %s50, %s50, %s2
  s_add_u32 %s50, %s50, %s3
  s_add_u32 %s50, %s50, %s4
  s_add_u32 %s50, %s50, %s5
  s_add_u32 %s50, %s50, %s6
  s_add_u32 %s50, %s50, %s7
  s_add_u32 %s50, %s50, %s8
  s_add_u32 %s50, %s50, %s9
  s_add_u32 %s50, %s50, %s10
  s_add_u32 %s50, %s50, %s11
  s_add_u32 %s50, %s50, %s12
  s_add_u32 %s50, %s50, %s13
  s_add_u32 %s50, %s50, %s14
  s_add_u32 %s50, %s50, %s15
  s_add_u32 %s50, %s50, %s16
  s_add_u32 %s50, %s50, %s17
  s_add_u32 %s50, %s50, %s18
  s_add_u32 %s50, %s50, %s19
  s_add_u32 %s50, %s50, %s20
  s_add_u32 %s50, %s50, %s21
  s_add_u32 %s50, %s50, %s22
  s_add_u32 %s50, %s50, %s23
  s_add_u32 %s50, %s50, %s24
  s_add_u32 %s50, %s50, %s25
  s_add_u32 %s50, %s50, %s26
  s_add_u32 %s50, %s50, %s27
  s_add_u32 %s50, %s50, %s28
  s_add_u32 %s50, %s50, %s29
  s_add_u32 %s50, %s50, %s30
  s_add_u32 %s50, %s50, %s31
  s_add_u32 %s50, %s50, %s32
  s_add_u32 %s50, %s50, %s33
  s_add_u32 %s50, %s50, %s34
  s_add_u32 %s50, %s50, %s35
  s_add_u32 %s50, %s50, %s36
  v_mov_b32 %v1, %s50
  global_store_b32 %s100:64, %v1, 0
  s_endpgm
}
; CHECK-LABEL: kernel @sspill frame_bytes=16 sgprs=42 spill_slots=3 vgprs=1 {
; CHECK-NEXT:    %stack.0 = slot 8, align 8
; CHECK:       entry:
; CHECK-NEXT:    s_load_b64 s[40:41], s[0:1], 0
; CHECK-NEXT:    s_scratch_store_b64 s[40:41], s32, %stack.0
; CHECK-NEXT:    s_add_u32 s3, s2, 0
; CHECK:         s_add_u32 s29, s2, 26
; CHECK-NEXT:    s_add_u32 s35, s2, 27
; CHECK:         s_add_u32 s40, s2, 32
; CHECK-NEXT:    s_scratch_store_b32 s40, s32, %stack.2
; CHECK:         s_scratch_load_b64 s[40:41], s32, %stack.0
; CHECK-NEXT:    global_store_b32 s[40:41], v0, 0
