; RUN: lower sgprs=128 vgprs=256
; Frame lowering: SP moves once, right after the entry's copy of SP (the frame base), and back
; just before each return; slots addressed from s32 are offsets less what SP moved (negative in
; the body), slots from the frame base are plain offsets; outgoing stack arguments at s32 + k
; lie above the frame.

func @f {
  %stack.0 = slot 16, align 16
  %stack.1 = slot 4, align 4
  %stack.2 = slot 4, align 4
entry:
  s_scratch_store_b32 s36, s32, %stack.2
  p_copy s36, s32
  scratch_load_b32 v1, s36, 4
  s_add_u32 s37, s36, %stack.1
  scratch_store_b32 s32, v1, %stack.1
  scratch_store_b32 s32, v1, 0
  s_call_b64 s[30:31], @g uses[s32]
  scratch_load_b32 v0, s32, %stack.1
  s_scratch_load_b32 s36, s32, %stack.2
  s_setpc_b64 s[30:31] uses[v0]
}

func @g {
entry:
  s_setpc_b64 s[30:31]
}
; CHECK-LABEL: func @f frame_bytes=32 {
; CHECK:       entry:
; CHECK-NEXT:    s_scratch_store_b32 s36, s32, 20
; CHECK-NEXT:    s_mov_b32 s36, s32
; CHECK-NEXT:    s_add_u32 s32, s32, 32
; CHECK-NEXT:    scratch_load_b32 v1, s36, 4
; CHECK-NEXT:    s_add_u32 s37, s36, 16
; CHECK-NEXT:    scratch_store_b32 s32, v1, -16
; CHECK-NEXT:    scratch_store_b32 s32, v1, 0
; CHECK-NEXT:    s_call_b64 s[30:31], @g uses[s32]
; CHECK-NEXT:    scratch_load_b32 v0, s32, -16
; CHECK-NEXT:    s_scratch_load_b32 s36, s32, -12
; CHECK-NEXT:    s_sub_u32 s32, s32, 32
; CHECK-NEXT:    s_setpc_b64 s[30:31] uses[v0]
; CHECK-LABEL: func @g frame_bytes=0 {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    s_setpc_b64 s[30:31]

; -----
; A kernel's frame: SP moves at entry and never back; a block after the entry sees SP moved.

kernel @k {
  %stack.0 = slot 8, align 8
entry:
  p_copy s6, s32
  s_cbranch_scc1 next
next:
  scratch_store_b64 s32, v[2:3], %stack.0
  scratch_load_b64 v[2:3], s6, %stack.0
  s_endpgm
}
; CHECK-LABEL: kernel @k frame_bytes=16 {
; CHECK-NEXT:    %stack.0 = slot 8, align 8
; CHECK-NEXT:  entry:
; CHECK-NEXT:    s_mov_b32 s6, s32
; CHECK-NEXT:    s_add_u32 s32, s32, 16
; CHECK-NEXT:    s_cbranch_scc1 next
; CHECK-NEXT:  next:
; CHECK-NEXT:    scratch_store_b64 s32, v[2:3], -16
; CHECK-NEXT:    scratch_load_b64 v[2:3], s6, 0
; CHECK-NEXT:    s_endpgm
