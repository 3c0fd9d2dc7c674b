; ModuleID = 'division.hip'
source_filename = "division.hip"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@Divisor = protected addrspace(1) externally_initialized global i32 0, align 4
@Quotients = protected addrspace(1) externally_initialized global [4 x i32] zeroinitializer, align 16
@Wide = protected addrspace(1) externally_initialized global [2 x i64] zeroinitializer, align 16
@__luthier_insert_0 = protected addrspace(4) externally_initialized constant [38 x i8] c"divide at = \22kernel_entry\22, args = []\00", section ".luthier.inserts", align 16
@__hip_cuid_eda6547d839c814e = addrspace(1) global i8 0
@llvm.compiler.used = appending addrspace(1) global [6 x ptr] [ptr addrspacecast (ptr addrspace(1) @Divisor to ptr), ptr addrspacecast (ptr addrspace(1) @Quotients to ptr), ptr addrspacecast (ptr addrspace(1) @Wide to ptr), ptr addrspacecast (ptr addrspace(1) @__hip_cuid_eda6547d839c814e to ptr), ptr addrspacecast (ptr addrspace(4) @__luthier_insert_0 to ptr), ptr @divide], section "llvm.metadata"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none)
define internal void @divide() #0 section ".luthier.hooks" !dbg !9 {
entry:
  %0 = tail call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0), !dbg !12
  %1 = tail call noundef i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %0), !dbg !16
  %mul = mul i32 %1, 977, !dbg !17
  %add = add i32 %mul, 5, !dbg !18
  %2 = load i32, ptr addrspace(1) @Divisor, align 4, !dbg !19, !tbaa !20
  %.frozen = freeze i32 %2, !dbg !24
  %div = udiv i32 %add, %.frozen, !dbg !24
  store i32 %div, ptr addrspace(1) @Quotients, align 16, !dbg !25, !tbaa !20
  %3 = mul i32 %div, %.frozen, !dbg !26
  %rem.decomposed = sub i32 %add, %3, !dbg !26
  store i32 %rem.decomposed, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Quotients, i64 4), align 4, !dbg !27, !tbaa !20
  %.frozen17 = freeze i32 %2, !dbg !28
  %div1 = sdiv i32 %add, %.frozen17, !dbg !28
  store i32 %div1, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Quotients, i64 8), align 8, !dbg !29, !tbaa !20
  %4 = mul i32 %div1, %.frozen17, !dbg !30
  %rem2.decomposed = sub i32 %add, %4, !dbg !30
  store i32 %rem2.decomposed, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Quotients, i64 12), align 4, !dbg !31, !tbaa !20
  %conv = zext i32 %add to i64, !dbg !32
  %shl = shl nuw nsw i64 %conv, 20, !dbg !33
  %conv3 = zext i32 %2 to i64, !dbg !34
  %conv3.frozen = freeze i64 %conv3, !dbg !35
  %div4 = udiv i64 %shl, %conv3.frozen, !dbg !35
  store i64 %div4, ptr addrspace(1) @Wide, align 16, !dbg !36, !tbaa !37
  %5 = mul i64 %div4, %conv3.frozen, !dbg !39
  %rem6.decomposed = sub i64 %shl, %5, !dbg !39
  store i64 %rem6.decomposed, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Wide, i64 8), align 8, !dbg !40, !tbaa !37
  ret void, !dbg !41
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32) #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none) "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "division.hip", directory: ".", checksumkind: CSK_MD5, checksum: "62df9b150f2e53f4a9856e74624b3d5c")
!2 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!3 = !{i32 1, !"amdgpu_printf_kind", !"hostcall"}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !{i32 2, !"Debug Info Version", i32 3}
!6 = !{i32 1, !"wchar_size", i32 4}
!7 = !{i32 8, !"PIC Level", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "divide", scope: !1, file: !1, line: 11, type: !10, scopeLine: 11, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !DILocation(line: 72, column: 41, scope: !13, inlinedAt: !15)
!13 = distinct !DISubprogram(name: "luthier_lane_id", scope: !14, file: !14, line: 71, type: !10, scopeLine: 71, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = !DIFile(filename: "../../../../frontend/hip/include/luthier_hooks.h", directory: ".", checksumkind: CSK_MD5, checksum: "e2508dd26471e81ada26d9dc37e51903")
!15 = distinct !DILocation(line: 12, column: 20, scope: !9)
!16 = !DILocation(line: 72, column: 10, scope: !13, inlinedAt: !15)
!17 = !DILocation(line: 12, column: 38, scope: !9)
!18 = !DILocation(line: 12, column: 45, scope: !9)
!19 = !DILocation(line: 13, column: 20, scope: !9)
!20 = !{!21, !21, i64 0}
!21 = !{!"int", !22, i64 0}
!22 = !{!"omnipotent char", !23, i64 0}
!23 = !{!"Simple C++ TBAA"}
!24 = !DILocation(line: 14, column: 20, scope: !9)
!25 = !DILocation(line: 14, column: 16, scope: !9)
!26 = !DILocation(line: 15, column: 20, scope: !9)
!27 = !DILocation(line: 15, column: 16, scope: !9)
!28 = !DILocation(line: 16, column: 40, scope: !9)
!29 = !DILocation(line: 16, column: 16, scope: !9)
!30 = !DILocation(line: 17, column: 40, scope: !9)
!31 = !DILocation(line: 17, column: 16, scope: !9)
!32 = !DILocation(line: 18, column: 48, scope: !9)
!33 = !DILocation(line: 18, column: 50, scope: !9)
!34 = !DILocation(line: 19, column: 19, scope: !9)
!35 = !DILocation(line: 19, column: 17, scope: !9)
!36 = !DILocation(line: 19, column: 11, scope: !9)
!37 = !{!38, !38, i64 0}
!38 = !{!"long long", !22, i64 0}
!39 = !DILocation(line: 20, column: 49, scope: !9)
!40 = !DILocation(line: 20, column: 11, scope: !9)
!41 = !DILocation(line: 21, column: 1, scope: !9)
