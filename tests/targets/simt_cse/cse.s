; RUN: simt-cse
; A repeated pure vector instruction of a block goes; its register's uses read the first one's.

kernel @repeat {
entry:
  global_load_b64 %v1:64, 0, 0
  v_abs_f64 %v2:64, %v1:64
  v_cmp_oge_f64 %s1:64, %v2:64, 524288.0
  v_abs_f64 %v3:64, %v1:64
  v_cmp_oge_f64 %s2:64, %v3:64, 524288.0
  v_cndmask_b64 %v4:64, %v3:64, 0.0, %s2:64
  p_split %v5, %v6, %v4:64
  p_split %v7, %v8, %v4:64
  v_add_u32 %v9, %v6, %v8
  global_store_b32 0, %v9, 0
  s_endpgm
}
; CHECK-LABEL: kernel @repeat {
; CHECK:         v_abs_f64 %v2:64, %v1:64
; CHECK-NEXT:    v_cmp_oge_f64 %s1:64, %v2:64, 524288.0
; CHECK-NEXT:    v_cndmask_b64 %v4:64, %v2:64, 0.0, %s1:64
; CHECK-NEXT:    p_split %v5, %v6, %v4:64
; CHECK-NEXT:    v_add_u32 %v9, %v6, %v6
; CHECK-NEXT:    global_store_b32 0, %v9, 0

; -----
; Immediates are equal only with the same type and bits: 0 and 0.0 differ, so do 0.0 and -0.0.

kernel @immediates {
entry:
  global_load_b64 %v1:64, 0, 0
  v_add_f64 %v2:64, %v1:64, 0.0
  v_add_f64 %v3:64, %v1:64, -0.0
  v_add_f64 %v4:64, %v1:64, 0
  v_and_b64 %v5:64, %v1:64, 1
  v_and_b64 %v6:64, %v1:64, 2
  v_and_b64 %v7:64, %v1:64, 1
  global_store_b64 0, %v2:64, 0
  global_store_b64 0, %v3:64, 8
  global_store_b64 0, %v4:64, 16
  global_store_b64 0, %v5:64, 24
  global_store_b64 0, %v6:64, 32
  global_store_b64 0, %v7:64, 40
  s_endpgm
}
; CHECK-LABEL: kernel @immediates {
; CHECK:         v_add_f64 %v2:64, %v1:64, 0.0
; CHECK-NEXT:    v_add_f64 %v3:64, %v1:64, -0.0
; CHECK-NEXT:    v_add_f64 %v4:64, %v1:64, 0
; CHECK-NEXT:    v_and_b64 %v5:64, %v1:64, 1
; CHECK-NEXT:    v_and_b64 %v6:64, %v1:64, 2
; CHECK-NEXT:    global_store_b64 0, %v2:64, 0
; CHECK:         global_store_b64 0, %v5:64, 40

; -----
; A write to exec between the two (the lanes on may differ) keeps both; so does a call.

kernel @exec {
entry:
  global_load_b32 %v1, 0, 0
  v_mul_f32 %v2, %v1, %v1
  v_cmp_olt_f32 %s1:64, %v1, 0.0
  s_and_saveexec_b64 %s2:64, %s1:64
  v_mul_f32 %v3, %v1, %v1
  s_call_b64 s[30:31], @g
  v_mul_f32 %v4, %v1, %v1
  global_store_b32 0, %v2, 0
  global_store_b32 0, %v3, 4
  global_store_b32 0, %v4, 8
  s_endpgm
}

func @g {
entry:
  s_setpc_b64 s[30:31]
}
; CHECK-LABEL: kernel @exec {
; CHECK:         v_mul_f32 %v2, %v1, %v1
; CHECK:         s_and_saveexec_b64
; CHECK-NEXT:    v_mul_f32 %v3, %v1, %v1
; CHECK-NEXT:    s_call_b64
; CHECK-NEXT:    v_mul_f32 %v4, %v1, %v1

; -----
; A source written again between the two keeps both; a register defined twice (a phi's) is never
; replaced nor kept as the value; instructions of different blocks stay; a physical register
; (which the ABI may write again) is never a key.

kernel @kills {
entry:
  global_load_b32 %v1, 0, 0
  v_add_u32 %v2, %v1, 1
  global_load_b32 %v1, 0, 4
  v_add_u32 %v3, %v1, 1
  v_add_u32 %v4, %v3, 2
  v_add_u32 %v4, %v3, 2
  v_add_u32 %v5, %v3, 2
  v_add_u32 %v6, v0, 3
  v_add_u32 %v7, v0, 3
  s_branch next
next:
  v_add_u32 %v8, %v3, 2
  global_store_b32 0, %v2, 0
  global_store_b32 0, %v4, 4
  global_store_b32 0, %v5, 8
  global_store_b32 0, %v6, 12
  global_store_b32 0, %v7, 16
  global_store_b32 0, %v8, 20
  s_endpgm
}
; CHECK-LABEL: kernel @kills {
; CHECK:         v_add_u32 %v2, %v1, 1
; CHECK-NEXT:    global_load_b32 %v1, 0, 4
; CHECK-NEXT:    v_add_u32 %v3, %v1, 1
; CHECK-NEXT:    v_add_u32 %v4, %v3, 2
; CHECK-NEXT:    v_add_u32 %v4, %v3, 2
; CHECK-NEXT:    v_add_u32 %v5, %v3, 2
; CHECK-NEXT:    v_add_u32 %v6, v0, 3
; CHECK-NEXT:    v_add_u32 %v7, v0, 3
; CHECK:       next:
; CHECK-NEXT:    v_add_u32 %v8, %v3, 2
