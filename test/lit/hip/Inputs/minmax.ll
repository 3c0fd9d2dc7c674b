; ModuleID = 'minmax.hip'
source_filename = "minmax.hip"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@Limit = protected addrspace(1) externally_initialized global i32 0, align 4
@Results = protected addrspace(1) externally_initialized global [5 x i32] zeroinitializer, align 16
@__luthier_insert_0 = protected addrspace(4) externally_initialized constant [37 x i8] c"clamp at = \22kernel_entry\22, args = []\00", section ".luthier.inserts", align 16
@__hip_cuid_eda6547d839c814e = addrspace(1) global i8 0
@llvm.compiler.used = appending addrspace(1) global [5 x ptr] [ptr addrspacecast (ptr addrspace(1) @Limit to ptr), ptr addrspacecast (ptr addrspace(1) @Results to ptr), ptr addrspacecast (ptr addrspace(1) @__hip_cuid_eda6547d839c814e to ptr), ptr addrspacecast (ptr addrspace(4) @__luthier_insert_0 to ptr), ptr @clamp], section "llvm.metadata"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none)
define internal void @clamp() #0 section ".luthier.hooks" !dbg !9 {
entry:
  %0 = tail call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0), !dbg !12
  %1 = tail call noundef i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %0), !dbg !16
  %2 = load i32, ptr addrspace(1) @Limit, align 4, !dbg !17
  %sub = sub nsw i32 %1, %2, !dbg !18
  %cond = tail call i32 @llvm.umin.i32(i32 %1, i32 %2), !dbg !19
  store i32 %cond, ptr addrspace(1) @Results, align 16, !dbg !20, !tbaa !21
  %cond5 = tail call i32 @llvm.umax.i32(i32 %1, i32 %2), !dbg !25
  store i32 %cond5, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Results, i64 4), align 4, !dbg !26, !tbaa !21
  %cond10 = tail call i32 @llvm.smin.i32(i32 %sub, i32 3), !dbg !27
  store i32 %cond10, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Results, i64 8), align 8, !dbg !28, !tbaa !21
  %cond15 = tail call i32 @llvm.smax.i32(i32 %sub, i32 -3), !dbg !29
  store i32 %cond15, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Results, i64 12), align 4, !dbg !30, !tbaa !21
  %3 = tail call i32 @llvm.abs.i32(i32 %sub, i1 true), !dbg !31
  store i32 %3, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Results, i64 16), align 16, !dbg !32, !tbaa !21
  ret void, !dbg !33
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.abs.i32(i32, i1 immarg) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.umin.i32(i32, i32) #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.umax.i32(i32, i32) #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.smin.i32(i32, i32) #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.smax.i32(i32, i32) #3

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none) "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(none) }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "minmax.hip", directory: ".", checksumkind: CSK_MD5, checksum: "0bbb2c35c0f9f2180d3e068bb898bb1a")
!2 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!3 = !{i32 1, !"amdgpu_printf_kind", !"hostcall"}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !{i32 2, !"Debug Info Version", i32 3}
!6 = !{i32 1, !"wchar_size", i32 4}
!7 = !{i32 8, !"PIC Level", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "clamp", scope: !1, file: !1, line: 9, type: !10, scopeLine: 9, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !DILocation(line: 72, column: 41, scope: !13, inlinedAt: !15)
!13 = distinct !DISubprogram(name: "luthier_lane_id", scope: !14, file: !14, line: 71, type: !10, scopeLine: 71, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = !DIFile(filename: "../../../../frontend/hip/include/luthier_hooks.h", directory: ".", checksumkind: CSK_MD5, checksum: "e2508dd26471e81ada26d9dc37e51903")
!15 = distinct !DILocation(line: 10, column: 20, scope: !9)
!16 = !DILocation(line: 72, column: 10, scope: !13, inlinedAt: !15)
!17 = !DILocation(line: 11, column: 25, scope: !9)
!18 = !DILocation(line: 11, column: 18, scope: !9)
!19 = !DILocation(line: 12, column: 16, scope: !9)
!20 = !DILocation(line: 12, column: 14, scope: !9)
!21 = !{!22, !22, i64 0}
!22 = !{!"int", !23, i64 0}
!23 = !{!"omnipotent char", !24, i64 0}
!24 = !{!"Simple C++ TBAA"}
!25 = !DILocation(line: 13, column: 16, scope: !9)
!26 = !DILocation(line: 13, column: 14, scope: !9)
!27 = !DILocation(line: 14, column: 31, scope: !9)
!28 = !DILocation(line: 14, column: 14, scope: !9)
!29 = !DILocation(line: 15, column: 31, scope: !9)
!30 = !DILocation(line: 15, column: 14, scope: !9)
!31 = !DILocation(line: 16, column: 30, scope: !9)
!32 = !DILocation(line: 16, column: 14, scope: !9)
!33 = !DILocation(line: 17, column: 1, scope: !9)
