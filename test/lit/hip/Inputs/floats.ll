; ModuleID = 'floats.hip'
source_filename = "floats.hip"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@Scale = protected addrspace(1) externally_initialized global float 0.000000e+00, align 4
@Sum = protected addrspace(1) externally_initialized global double 0.000000e+00, align 8
@Total = protected addrspace(1) externally_initialized global i32 0, align 4
@__luthier_insert_0 = protected addrspace(4) externally_initialized constant [59 x i8] c"floats at = \22kernel_entry\22, args = [#instr.const<3 : i32>]\00", section ".luthier.inserts", align 16
@__hip_cuid_eda6547d839c814e = addrspace(1) global i8 0
@llvm.compiler.used = appending addrspace(1) global [6 x ptr] [ptr addrspacecast (ptr addrspace(1) @Scale to ptr), ptr addrspacecast (ptr addrspace(1) @Sum to ptr), ptr addrspacecast (ptr addrspace(1) @Total to ptr), ptr addrspacecast (ptr addrspace(1) @__hip_cuid_eda6547d839c814e to ptr), ptr addrspacecast (ptr addrspace(4) @__luthier_insert_0 to ptr), ptr @floats], section "llvm.metadata"

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none)
define internal void @floats(i32 noundef %Bias) #0 section ".luthier.hooks" !dbg !9 {
entry:
  %0 = tail call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0), !dbg !12
  %1 = tail call noundef i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %0), !dbg !16
  %conv = uitofp i32 %1 to float, !dbg !17
  %mul.i = fmul contract float %conv, 5.000000e-01, !dbg !18
  %conv.i = sitofp i32 %Bias to float, !dbg !21
  %sub.i = fsub contract float %mul.i, %conv.i, !dbg !22
  %2 = load float, ptr addrspace(1) @Scale, align 4, !dbg !23, !tbaa !24
  %mul = fmul contract float %2, %sub.i, !dbg !28
  %conv2 = fpext float %mul to double, !dbg !29
  %add = fadd contract double %conv2, 1.000000e-01, !dbg !30
  %cmp = fcmp contract ogt double %add, 3.250000e+00, !dbg !31
  %cmp3 = fcmp contract uno double %add, 0.000000e+00
  %or.cond = or i1 %cmp, %cmp3, !dbg !32
  %fneg = fneg contract float %mul, !dbg !32
  %W.0 = select i1 %or.cond, float %fneg, float %mul, !dbg !32
  %3 = tail call contract float @llvm.minnum.f32(float %W.0, float 1.000000e+02), !dbg !33
  %4 = tail call contract float @llvm.maxnum.f32(float %3, float -1.000000e+02), !dbg !34
  %add4 = fadd contract float %4, %conv, !dbg !35
  store double %add, ptr addrspace(1) @Sum, align 8, !dbg !36, !tbaa !37
  %cmp5 = fcmp contract olt float %W.0, 0.000000e+00, !dbg !39
  %conv6 = fptrunc double %add to float, !dbg !40
  %cond = select contract i1 %cmp5, float 1.500000e+00, float %conv6, !dbg !40
  store float %cond, ptr addrspace(1) @Scale, align 4, !dbg !41, !tbaa !24
  %conv7 = fptoui float %add4 to i32, !dbg !42
  %5 = bitcast float %W.0 to i32, !dbg !43
  %add8 = add i32 %conv7, %5, !dbg !44
  %6 = atomicrmw add ptr addrspace(1) @Total, i32 %add8 syncscope("agent-one-as") monotonic, align 4, !dbg !45
  ret void, !dbg !48
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.minnum.f32(float, float) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maxnum.f32(float, float) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32) #2

attributes #0 = { mustprogress nofree norecurse nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none) "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "floats.hip", directory: ".", checksumkind: CSK_MD5, checksum: "adb7ca828db78a27b7bc8924b50250ea")
!2 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!3 = !{i32 1, !"amdgpu_printf_kind", !"hostcall"}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !{i32 2, !"Debug Info Version", i32 3}
!6 = !{i32 1, !"wchar_size", i32 4}
!7 = !{i32 8, !"PIC Level", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "floats", scope: !1, file: !1, line: 13, type: !10, scopeLine: 13, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !DILocation(line: 72, column: 41, scope: !13, inlinedAt: !15)
!13 = distinct !DISubprogram(name: "luthier_lane_id", scope: !14, file: !14, line: 71, type: !10, scopeLine: 71, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = !DIFile(filename: "../../../../frontend/hip/include/luthier_hooks.h", directory: ".", checksumkind: CSK_MD5, checksum: "e2508dd26471e81ada26d9dc37e51903")
!15 = distinct !DILocation(line: 14, column: 20, scope: !9)
!16 = !DILocation(line: 72, column: 10, scope: !13, inlinedAt: !15)
!17 = !DILocation(line: 14, column: 20, scope: !9)
!18 = !DILocation(line: 11, column: 58, scope: !19, inlinedAt: !20)
!19 = distinct !DISubprogram(name: "weigh", scope: !1, file: !1, line: 11, type: !10, scopeLine: 11, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!20 = distinct !DILocation(line: 15, column: 13, scope: !9)
!21 = !DILocation(line: 11, column: 74, scope: !19, inlinedAt: !20)
!22 = !DILocation(line: 11, column: 65, scope: !19, inlinedAt: !20)
!23 = !DILocation(line: 15, column: 30, scope: !9)
!24 = !{!25, !25, i64 0}
!25 = !{!"float", !26, i64 0}
!26 = !{!"omnipotent char", !27, i64 0}
!27 = !{!"Simple C++ TBAA"}
!28 = !DILocation(line: 15, column: 28, scope: !9)
!29 = !DILocation(line: 16, column: 22, scope: !9)
!30 = !DILocation(line: 16, column: 24, scope: !9)
!31 = !DILocation(line: 17, column: 9, scope: !9)
!32 = !DILocation(line: 17, column: 16, scope: !9)
!33 = !DILocation(line: 19, column: 29, scope: !9)
!34 = !DILocation(line: 19, column: 13, scope: !9)
!35 = !DILocation(line: 19, column: 66, scope: !9)
!36 = !DILocation(line: 20, column: 7, scope: !9)
!37 = !{!38, !38, i64 0}
!38 = !{!"double", !26, i64 0}
!39 = !DILocation(line: 21, column: 13, scope: !9)
!40 = !DILocation(line: 21, column: 11, scope: !9)
!41 = !DILocation(line: 21, column: 9, scope: !9)
!42 = !DILocation(line: 22, column: 35, scope: !9)
!43 = !DILocation(line: 22, column: 53, scope: !9)
!44 = !DILocation(line: 22, column: 37, scope: !9)
!45 = !DILocation(line: 101, column: 1, scope: !46, inlinedAt: !47)
!46 = distinct !DISubprogram(name: "atomicAdd", scope: !14, file: !14, line: 101, type: !10, scopeLine: 101, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!47 = distinct !DILocation(line: 22, column: 3, scope: !9)
!48 = !DILocation(line: 23, column: 1, scope: !9)
