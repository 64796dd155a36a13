; RUN: regalloc sgprs=48 vgprs=24
; Control flow: a value live around a back edge keeps one register for the whole loop; a value
; written on both sides of a divergent if/else (exec-mask form) has one register on both sides and
; after the join; values live through both sides are not shared with values local to one side.

kernel @loop {
entry:
  v_mov_b32 %v1, 0
  v_add_u32 %v2, v0, 5
  s_mov_b32 %s1, 0
loop:
  v_add_u32 %v3, %v1, %v2
  v_mul_lo_u32 %v1, %v3, 3
  s_add_u32 %s1, %s1, 1
  s_cmp_lt_u32 %s1, 10
  s_cbranch_scc1 loop
done:
  global_store_b32 0, %v1, 0
  s_endpgm
}
; CHECK-LABEL: kernel @loop
; CHECK:         v_mov_b32 [[ACC:v[0-9]+]], 0
; CHECK-NEXT:    v_add_u32 [[X:v[0-9]+]], v0, 5
; CHECK-NEXT:    s_mov_b32 [[I:s[0-9]+]], 0
; CHECK-NEXT:  loop:
; CHECK-NEXT:    v_add_u32 [[T:v[0-9]+]], [[ACC]], [[X]]
; CHECK-NEXT:    v_mul_lo_u32 [[ACC]], [[T]], 3
; CHECK-NEXT:    s_add_u32 [[I]], [[I]], 1
; CHECK-NEXT:    s_cmp_lt_u32 [[I]], 10
; CHECK-NEXT:    s_cbranch_scc1 loop
; CHECK-NEXT:  done:
; CHECK-NEXT:    global_store_b32 0, [[ACC]], 0

; -----

kernel @diamond {
entry:
  v_add_u32 %v1, v0, 7
  v_and_b32 %v2, v0, 1
  v_cmp_eq_u32 %s1:64, %v2, 0
  s_and_saveexec_b64 %s2:64, %s1:64
  s_cbranch_execz else
then:
  v_mul_lo_u32 %v4, %v1, 3
  v_add_u32 %v3, %v4, 1
else:
  s_andn2_b64 exec, %s2:64, %s1:64
  s_cbranch_execz join
  v_mul_lo_u32 %v5, %v1, 5
  v_add_u32 %v3, %v5, 2
join:
  s_mov_b64 exec, %s2:64
  v_add_u32 %v6, %v3, %v1
  global_store_b32 0, %v6, 0
  s_endpgm
}
; CHECK-LABEL: kernel @diamond
; CHECK:         v_add_u32 [[X:v[0-9]+]], v0, 7
; CHECK:       then:
; CHECK-NEXT:    v_mul_lo_u32 [[T:v[0-9]+]], [[X]], 3
; CHECK-NEXT:    v_add_u32 [[R:v[0-9]+]], [[T]], 1
; CHECK:       else:
; CHECK:         v_mul_lo_u32 [[E:v[0-9]+]], [[X]], 5
; CHECK-NEXT:    v_add_u32 [[R]], [[E]], 2
; CHECK:       join:
; CHECK:         v_add_u32 {{v[0-9]+}}, [[R]], [[X]]
