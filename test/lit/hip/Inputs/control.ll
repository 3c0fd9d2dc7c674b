; ModuleID = 'control.hip'
source_filename = "control.hip"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@Totals = protected addrspace(1) externally_initialized global [4 x i64] zeroinitializer, align 16
@Flags = protected addrspace(1) externally_initialized global i32 0, align 4
@.str = private unnamed_addr addrspace(4) constant [3 x i8] c"s4\00", align 1
@.str.1 = private unnamed_addr addrspace(4) constant [7 x i8] c"s[4:5]\00", align 1
@.str.2 = private unnamed_addr addrspace(4) constant [3 x i8] c"v1\00", align 1
@__luthier_insert_0 = protected addrspace(4) externally_initialized constant [84 x i8] c"joins at = \22instruction\22, mnemonic = \22global_load*\22, args = [#instr.const<7 : i32>]\00", section ".luthier.inserts", align 16
@__luthier_insert_1 = protected addrspace(4) externally_initialized constant [53 x i8] c"early at = \22kernel_entry\22, args = [#instr.reg<\22s8\22>]\00", section ".luthier.inserts", align 16
@__luthier_insert_2 = protected addrspace(4) externally_initialized constant [32 x i8] c"intrinsics at = \22before_return\22\00", section ".luthier.inserts", align 16
@__luthier_insert_3 = protected addrspace(4) externally_initialized constant [59 x i8] c"helpers at = \22block_entry\22, args = [#instr.const<5 : i32>]\00", section ".luthier.inserts", align 16
@__hip_cuid_eda6547d839c814e = addrspace(1) global i8 0
@llvm.compiler.used = appending addrspace(1) global [11 x ptr] [ptr addrspacecast (ptr addrspace(1) @Flags to ptr), ptr addrspacecast (ptr addrspace(1) @Totals to ptr), ptr addrspacecast (ptr addrspace(1) @__hip_cuid_eda6547d839c814e to ptr), ptr addrspacecast (ptr addrspace(4) @__luthier_insert_0 to ptr), ptr addrspacecast (ptr addrspace(4) @__luthier_insert_1 to ptr), ptr addrspacecast (ptr addrspace(4) @__luthier_insert_2 to ptr), ptr addrspacecast (ptr addrspace(4) @__luthier_insert_3 to ptr), ptr @early, ptr @helpers, ptr @intrinsics, ptr @joins], section "llvm.metadata"

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none)
define internal void @joins(i32 noundef %Kind) #0 section ".luthier.hooks" !dbg !9 {
entry:
  %cmp = icmp ugt i32 %Kind, 4, !dbg !12
  br i1 %cmp, label %if.then, label %if.else, !dbg !13

if.then:                                          ; preds = %entry
  %0 = atomicrmw add ptr addrspace(1) @Flags, i32 1 syncscope("agent-one-as") monotonic, align 4, !dbg !14
  br label %if.end, !dbg !18

if.else:                                          ; preds = %entry
  %1 = atomicrmw or ptr addrspace(1) @Flags, i32 2 syncscope("agent-one-as") monotonic, align 4, !dbg !19
  br label %if.end

if.end:                                           ; preds = %if.else, %if.then
  %Old.0 = phi i32 [ %0, %if.then ], [ %1, %if.else ], !dbg !22
  %conv = zext i32 %Old.0 to i64, !dbg !23
  %and = and i32 %Old.0, 3, !dbg !24
  %idxprom = zext nneg i32 %and to i64, !dbg !25
  %arrayidx = getelementptr inbounds [4 x i64], ptr addrspace(1) @Totals, i64 0, i64 %idxprom, !dbg !25
  store i64 %conv, ptr addrspace(1) %arrayidx, align 8, !dbg !26, !tbaa !27
  ret void, !dbg !31
}

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none)
define internal void @early(i32 noundef %X) #0 section ".luthier.hooks" !dbg !32 {
entry:
  %cmp = icmp eq i32 %X, 0, !dbg !33
  br i1 %cmp, label %return, label %if.end, !dbg !34

if.end:                                           ; preds = %entry
  %0 = atomicrmw add ptr addrspace(1) @Flags, i32 %X syncscope("agent-one-as") monotonic, align 4, !dbg !35
  %cmp1 = icmp ugt i32 %X, 100, !dbg !37
  br i1 %cmp1, label %return, label %if.end3, !dbg !38

if.end3:                                          ; preds = %if.end
  %1 = atomicrmw umax ptr addrspace(1) @Flags, i32 %X syncscope("agent-one-as") monotonic, align 4, !dbg !39
  br label %return, !dbg !42

return:                                           ; preds = %if.end, %entry, %if.end3
  ret void, !dbg !42
}

; Function Attrs: convergent mustprogress nounwind
define internal void @intrinsics() #1 section ".luthier.hooks" !dbg !43 {
entry:
  %call = tail call i32 @luthier_read_reg32(ptr noundef addrspacecast (ptr addrspace(4) @.str to ptr)) #8, !dbg !44
  %call1 = tail call i64 @luthier_read_reg64(ptr noundef addrspacecast (ptr addrspace(4) @.str.1 to ptr)) #8, !dbg !45
  %call2 = tail call i32 @luthier_kernarg32(i32 noundef 8) #8, !dbg !46
  %0 = tail call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0), !dbg !47
  %1 = tail call noundef i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %0), !dbg !50
  %2 = tail call i32 @llvm.amdgcn.readfirstlane.i32(i32 %1), !dbg !51
  %3 = tail call noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x(), !dbg !52
  %4 = tail call noundef i32 @llvm.amdgcn.workgroup.id.y(), !dbg !55
  %add = add i32 %call, %3, !dbg !58
  tail call void @luthier_write_reg32(ptr noundef addrspacecast (ptr addrspace(4) @.str.2 to ptr), i32 noundef %add) #8, !dbg !59
  %conv = zext i32 %call2 to i64, !dbg !60
  %conv7 = zext i32 %2 to i64, !dbg !61
  %conv9 = zext i32 %4 to i64, !dbg !62
  %call11 = tail call i32 @luthier_block_dim(i32 noundef 0) #8, !dbg !63
  %conv12 = zext i32 %call11 to i64, !dbg !63
  %add6 = add i64 %call1, %conv9, !dbg !64
  %add8 = add i64 %add6, %conv, !dbg !65
  %add10 = add i64 %add8, %conv7, !dbg !66
  %add13 = add i64 %add10, %conv12, !dbg !67
  store i64 %add13, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Totals, i64 8), align 8, !dbg !68, !tbaa !27
  ret void, !dbg !69
}

; Function Attrs: convergent nounwind
declare !dbg !70 hidden i32 @luthier_read_reg32(ptr noundef) local_unnamed_addr #2

; Function Attrs: convergent nounwind
declare !dbg !71 hidden i64 @luthier_read_reg64(ptr noundef) local_unnamed_addr #2

; Function Attrs: convergent nounwind
declare !dbg !72 hidden i32 @luthier_kernarg32(i32 noundef) local_unnamed_addr #2

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32) #3

; Function Attrs: convergent nounwind
declare !dbg !73 hidden void @luthier_write_reg32(ptr noundef, i32 noundef) local_unnamed_addr #2

; Function Attrs: convergent nounwind
declare !dbg !74 hidden i32 @luthier_block_dim(i32 noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nofree noinline norecurse nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none)
define internal fastcc noundef i32 @_Z4bumpj(i32 noundef %X) unnamed_addr #4 !dbg !75 {
entry:
  %and = and i32 %X, 1, !dbg !76
  %tobool.not = icmp eq i32 %and, 0, !dbg !77
  br i1 %tobool.not, label %if.end, label %if.then, !dbg !77

if.then:                                          ; preds = %entry
  %0 = atomicrmw add ptr addrspace(1) @Flags, i32 %X syncscope("agent-one-as") monotonic, align 4, !dbg !78
  br label %return, !dbg !80

if.end:                                           ; preds = %entry
  %mul = mul i32 %X, 3, !dbg !81
  br label %return, !dbg !82

return:                                           ; preds = %if.end, %if.then
  %retval.0 = phi i32 [ %0, %if.then ], [ %mul, %if.end ], !dbg !83
  ret i32 %retval.0, !dbg !84
}

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(readwrite, inaccessiblemem: none)
define internal void @helpers(i32 noundef %X) #5 section ".luthier.hooks" !dbg !85 {
entry:
  %call = tail call fastcc noundef i32 @_Z4bumpj(i32 noundef %X) #9, !dbg !86
  %add = add i32 %X, 1, !dbg !87
  %call1 = tail call fastcc noundef i32 @_Z4bumpj(i32 noundef %add) #9, !dbg !88
  %add2 = add i32 %call1, %call, !dbg !89
  %conv = zext i32 %add2 to i64, !dbg !86
  store i64 %conv, ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @Totals, i64 16), align 16, !dbg !90, !tbaa !27
  ret void, !dbg !91
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32) #6

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32) #6

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #7

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.y() #7

attributes #0 = { mustprogress nofree norecurse nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none) "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #1 = { convergent mustprogress nounwind "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #2 = { convergent nounwind "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #3 = { convergent mustprogress nocallback nofree nounwind willreturn memory(none) }
attributes #4 = { mustprogress nofree noinline norecurse nounwind willreturn memory(readwrite, argmem: none, inaccessiblemem: none) "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #5 = { mustprogress nofree norecurse nounwind willreturn memory(readwrite, inaccessiblemem: none) "amdgpu-no-agpr" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "amdgpu-waves-per-eu"="4,8" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+ci-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+s-memrealtime,+s-memtime-inst,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #6 = { mustprogress nocallback nofree nosync nounwind willreturn memory(none) }
attributes #7 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #8 = { convergent nounwind }
attributes #9 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "control.hip", directory: ".", checksumkind: CSK_MD5, checksum: "76db212a1506c2d30909a002ff24125f")
!2 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!3 = !{i32 1, !"amdgpu_printf_kind", !"hostcall"}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !{i32 2, !"Debug Info Version", i32 3}
!6 = !{i32 1, !"wchar_size", i32 4}
!7 = !{i32 8, !"PIC Level", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "joins", scope: !1, file: !1, line: 11, type: !10, scopeLine: 11, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !DILocation(line: 13, column: 12, scope: !9)
!13 = !DILocation(line: 13, column: 7, scope: !9)
!14 = !DILocation(line: 101, column: 1, scope: !15, inlinedAt: !17)
!15 = distinct !DISubprogram(name: "atomicAdd", scope: !16, file: !16, line: 101, type: !10, scopeLine: 101, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!16 = !DIFile(filename: "../../../../frontend/hip/include/luthier_hooks.h", directory: ".", checksumkind: CSK_MD5, checksum: "e2508dd26471e81ada26d9dc37e51903")
!17 = distinct !DILocation(line: 14, column: 11, scope: !9)
!18 = !DILocation(line: 14, column: 5, scope: !9)
!19 = !DILocation(line: 106, column: 1, scope: !20, inlinedAt: !21)
!20 = distinct !DISubprogram(name: "atomicOr", scope: !16, file: !16, line: 106, type: !10, scopeLine: 106, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!21 = distinct !DILocation(line: 16, column: 11, scope: !9)
!22 = !DILocation(line: 0, scope: !9)
!23 = !DILocation(line: 17, column: 21, scope: !9)
!24 = !DILocation(line: 17, column: 14, scope: !9)
!25 = !DILocation(line: 17, column: 3, scope: !9)
!26 = !DILocation(line: 17, column: 19, scope: !9)
!27 = !{!28, !28, i64 0}
!28 = !{!"long long", !29, i64 0}
!29 = !{!"omnipotent char", !30, i64 0}
!30 = !{!"Simple C++ TBAA"}
!31 = !DILocation(line: 18, column: 1, scope: !9)
!32 = distinct !DISubprogram(name: "early", scope: !1, file: !1, line: 21, type: !10, scopeLine: 21, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!33 = !DILocation(line: 22, column: 9, scope: !32)
!34 = !DILocation(line: 22, column: 7, scope: !32)
!35 = !DILocation(line: 101, column: 1, scope: !15, inlinedAt: !36)
!36 = distinct !DILocation(line: 24, column: 3, scope: !32)
!37 = !DILocation(line: 25, column: 9, scope: !32)
!38 = !DILocation(line: 25, column: 7, scope: !32)
!39 = !DILocation(line: 103, column: 1, scope: !40, inlinedAt: !41)
!40 = distinct !DISubprogram(name: "atomicMax", scope: !16, file: !16, line: 103, type: !10, scopeLine: 103, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!41 = distinct !DILocation(line: 27, column: 3, scope: !32)
!42 = !DILocation(line: 28, column: 1, scope: !32)
!43 = distinct !DISubprogram(name: "intrinsics", scope: !1, file: !1, line: 31, type: !10, scopeLine: 31, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!44 = !DILocation(line: 32, column: 21, scope: !43)
!45 = !DILocation(line: 33, column: 29, scope: !43)
!46 = !DILocation(line: 34, column: 22, scope: !43)
!47 = !DILocation(line: 72, column: 41, scope: !48, inlinedAt: !49)
!48 = distinct !DISubprogram(name: "luthier_lane_id", scope: !16, file: !16, line: 71, type: !10, scopeLine: 71, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!49 = distinct !DILocation(line: 35, column: 55, scope: !43)
!50 = !DILocation(line: 72, column: 10, scope: !48, inlinedAt: !49)
!51 = !DILocation(line: 35, column: 24, scope: !43)
!52 = !DILocation(line: 88, column: 21, scope: !53, inlinedAt: !54)
!53 = distinct !DISubprogram(name: "luthier_workitem_id", scope: !16, file: !16, line: 87, type: !10, scopeLine: 87, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!54 = distinct !DILocation(line: 36, column: 22, scope: !43)
!55 = !DILocation(line: 84, column: 21, scope: !56, inlinedAt: !57)
!56 = distinct !DISubprogram(name: "luthier_workgroup_id", scope: !16, file: !16, line: 82, type: !10, scopeLine: 82, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!57 = distinct !DILocation(line: 37, column: 24, scope: !43)
!58 = !DILocation(line: 38, column: 32, scope: !43)
!59 = !DILocation(line: 38, column: 3, scope: !43)
!60 = !DILocation(line: 39, column: 22, scope: !43)
!61 = !DILocation(line: 39, column: 28, scope: !43)
!62 = !DILocation(line: 39, column: 36, scope: !43)
!63 = !DILocation(line: 39, column: 44, scope: !43)
!64 = !DILocation(line: 39, column: 20, scope: !43)
!65 = !DILocation(line: 39, column: 26, scope: !43)
!66 = !DILocation(line: 39, column: 34, scope: !43)
!67 = !DILocation(line: 39, column: 42, scope: !43)
!68 = !DILocation(line: 39, column: 13, scope: !43)
!69 = !DILocation(line: 40, column: 1, scope: !43)
!70 = !DISubprogram(name: "luthier_read_reg32", scope: !16, file: !16, line: 54, type: !10, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!71 = !DISubprogram(name: "luthier_read_reg64", scope: !16, file: !16, line: 55, type: !10, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!72 = !DISubprogram(name: "luthier_kernarg32", scope: !16, file: !16, line: 61, type: !10, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!73 = !DISubprogram(name: "luthier_write_reg32", scope: !16, file: !16, line: 56, type: !10, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!74 = !DISubprogram(name: "luthier_block_dim", scope: !16, file: !16, line: 65, type: !10, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!75 = distinct !DISubprogram(name: "bump", scope: !1, file: !1, line: 43, type: !10, scopeLine: 43, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!76 = !DILocation(line: 44, column: 9, scope: !75)
!77 = !DILocation(line: 44, column: 7, scope: !75)
!78 = !DILocation(line: 101, column: 1, scope: !15, inlinedAt: !79)
!79 = distinct !DILocation(line: 45, column: 12, scope: !75)
!80 = !DILocation(line: 45, column: 5, scope: !75)
!81 = !DILocation(line: 46, column: 12, scope: !75)
!82 = !DILocation(line: 46, column: 3, scope: !75)
!83 = !DILocation(line: 0, scope: !75)
!84 = !DILocation(line: 47, column: 1, scope: !75)
!85 = distinct !DISubprogram(name: "helpers", scope: !1, file: !1, line: 49, type: !10, scopeLine: 49, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!86 = !DILocation(line: 49, column: 57, scope: !85)
!87 = !DILocation(line: 49, column: 74, scope: !85)
!88 = !DILocation(line: 49, column: 67, scope: !85)
!89 = !DILocation(line: 49, column: 65, scope: !85)
!90 = !DILocation(line: 49, column: 55, scope: !85)
!91 = !DILocation(line: 49, column: 80, scope: !85)
