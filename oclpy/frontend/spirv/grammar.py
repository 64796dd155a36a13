"""SPIR-V numbers as tables, written from the SPIR-V 1.6 specification.

Opcode numbers and names (`OPCODES`, `opname`), and the enumerants the
OpenCL environment uses: storage classes, decorations, built-in variables,
execution models and modes, capabilities, rounding modes, function
parameter attributes, memory operands, scopes and memory semantics.
"""

from __future__ import annotations

_OPCODE_TEXT = """
0 Nop 1 Undef 2 SourceContinued 3 Source 4 SourceExtension 5 Name 6 MemberName 7 String
8 Line 10 Extension 11 ExtInstImport 12 ExtInst 14 MemoryModel 15 EntryPoint
16 ExecutionMode 17 Capability 19 TypeVoid 20 TypeBool 21 TypeInt 22 TypeFloat
23 TypeVector 24 TypeMatrix 25 TypeImage 26 TypeSampler 27 TypeSampledImage 28 TypeArray
29 TypeRuntimeArray 30 TypeStruct 31 TypeOpaque 32 TypePointer 33 TypeFunction 34 TypeEvent
35 TypeDeviceEvent 36 TypeReserveId 37 TypeQueue 38 TypePipe 39 TypeForwardPointer
41 ConstantTrue 42 ConstantFalse 43 Constant 44 ConstantComposite 45 ConstantSampler
46 ConstantNull 48 SpecConstantTrue 49 SpecConstantFalse 50 SpecConstant
51 SpecConstantComposite 52 SpecConstantOp 54 Function 55 FunctionParameter 56 FunctionEnd
57 FunctionCall 59 Variable 60 ImageTexelPointer 61 Load 62 Store 63 CopyMemory
64 CopyMemorySized 65 AccessChain 66 InBoundsAccessChain 67 PtrAccessChain 68 ArrayLength
69 GenericPtrMemSemantics 70 InBoundsPtrAccessChain 71 Decorate 72 MemberDecorate
73 DecorationGroup 74 GroupDecorate 75 GroupMemberDecorate 77 VectorExtractDynamic
78 VectorInsertDynamic 79 VectorShuffle 80 CompositeConstruct 81 CompositeExtract
82 CompositeInsert 83 CopyObject 84 Transpose 86 SampledImage 87 ImageSampleImplicitLod
95 ImageFetch 98 ImageRead 99 ImageWrite 100 Image 103 ImageQuerySizeLod 104 ImageQuerySize
109 ConvertFToU 110 ConvertFToS 111 ConvertSToF 112 ConvertUToF 113 UConvert 114 SConvert
115 FConvert 116 QuantizeToF16 117 ConvertPtrToU 118 SatConvertSToU 119 SatConvertUToS
120 ConvertUToPtr 121 PtrCastToGeneric 122 GenericCastToPtr 123 GenericCastToPtrExplicit
124 Bitcast 126 SNegate 127 FNegate 128 IAdd 129 FAdd 130 ISub 131 FSub 132 IMul 133 FMul
134 UDiv 135 SDiv 136 FDiv 137 UMod 138 SRem 139 SMod 140 FRem 141 FMod
142 VectorTimesScalar 143 MatrixTimesScalar 144 VectorTimesMatrix 145 MatrixTimesVector
146 MatrixTimesMatrix 147 OuterProduct 148 Dot 149 IAddCarry 150 ISubBorrow
151 UMulExtended 152 SMulExtended 154 Any 155 All 156 IsNan 157 IsInf 158 IsFinite
159 IsNormal 160 SignBitSet 161 LessOrGreater 162 Ordered 163 Unordered 164 LogicalEqual
165 LogicalNotEqual 166 LogicalOr 167 LogicalAnd 168 LogicalNot 169 Select 170 IEqual
171 INotEqual 172 UGreaterThan 173 SGreaterThan 174 UGreaterThanEqual 175 SGreaterThanEqual
176 ULessThan 177 SLessThan 178 ULessThanEqual 179 SLessThanEqual 180 FOrdEqual
181 FUnordEqual 182 FOrdNotEqual 183 FUnordNotEqual 184 FOrdLessThan 185 FUnordLessThan
186 FOrdGreaterThan 187 FUnordGreaterThan 188 FOrdLessThanEqual 189 FUnordLessThanEqual
190 FOrdGreaterThanEqual 191 FUnordGreaterThanEqual 194 ShiftRightLogical
195 ShiftRightArithmetic 196 ShiftLeftLogical 197 BitwiseOr 198 BitwiseXor 199 BitwiseAnd
200 Not 201 BitFieldInsert 202 BitFieldSExtract 203 BitFieldUExtract 204 BitReverse
205 BitCount 207 DPdx 218 EmitVertex 224 ControlBarrier 225 MemoryBarrier 227 AtomicLoad
228 AtomicStore 229 AtomicExchange 230 AtomicCompareExchange 231 AtomicCompareExchangeWeak
232 AtomicIIncrement 233 AtomicIDecrement 234 AtomicIAdd 235 AtomicISub 236 AtomicSMin
237 AtomicUMin 238 AtomicSMax 239 AtomicUMax 240 AtomicAnd 241 AtomicOr 242 AtomicXor
245 Phi 246 LoopMerge 247 SelectionMerge 248 Label 249 Branch 250 BranchConditional
251 Switch 252 Kill 253 Return 254 ReturnValue 255 Unreachable 256 LifetimeStart
257 LifetimeStop 259 GroupAsyncCopy 260 GroupWaitEvents 261 GroupAll 262 GroupAny
263 GroupBroadcast 264 GroupIAdd 265 GroupFAdd 266 GroupFMin 267 GroupUMin 268 GroupSMin
269 GroupFMax 270 GroupUMax 271 GroupSMax 274 ReadPipe 275 WritePipe 291 EnqueueMarker
292 EnqueueKernel 299 RetainEvent 300 ReleaseEvent 301 CreateUserEvent 317 NoLine
318 AtomicFlagTestAndSet 319 AtomicFlagClear 320 SizeOf 321 TypePipeStorage
322 ConstantPipeStorage 323 CreatePipeFromPipeStorage 330 TypeNamedBarrier
331 ModuleProcessed 332 ExecutionModeId 333 DecorateId 400 CopyLogical 401 PtrEqual
402 PtrNotEqual 403 PtrDiff 5632 DecorateString 5633 MemberDecorateString
6035 AtomicFAddEXT 5614 AtomicFMinEXT 5615 AtomicFMaxEXT 4421 SubgroupBallotKHR
"""


def _parse(text: str) -> dict[int, str]:
    words = text.split()
    return {int(words[i]): "Op" + words[i + 1] for i in range(0, len(words), 2)}


OPCODES: dict[int, str] = _parse(_OPCODE_TEXT)
OP: dict[str, int] = {name[2:]: num for num, name in OPCODES.items()}


def opname(opcode: int) -> str:
    return OPCODES.get(opcode, f"Op#{opcode}")


def _enum(text: str) -> dict[int, str]:
    words = text.split()
    return {int(words[i]): words[i + 1] for i in range(0, len(words), 2)}


STORAGE_CLASSES = _enum("""0 UniformConstant 1 Input 2 Uniform 3 Output 4 Workgroup
    5 CrossWorkgroup 6 Private 7 Function 8 Generic 9 PushConstant 10 AtomicCounter 11 Image
    12 StorageBuffer 5936 DeviceOnlyINTEL 5937 HostOnlyINTEL""")
SC = {name: num for num, name in STORAGE_CLASSES.items()}

DECORATIONS = _enum("""0 RelaxedPrecision 1 SpecId 2 Block 3 BufferBlock 4 RowMajor 5 ColMajor
    6 ArrayStride 7 MatrixStride 8 GLSLShared 9 GLSLPacked 10 CPacked 11 BuiltIn
    13 NoPerspective 14 Flat 15 Patch 16 Centroid 17 Sample 18 Invariant 19 Restrict
    20 Aliased 21 Volatile 22 Constant 23 Coherent 24 NonWritable 25 NonReadable 26 Uniform
    28 SaturatedConversion 29 Stream 30 Location 31 Component 32 Index 33 Binding
    34 DescriptorSet 35 Offset 36 XfbBuffer 37 XfbStride 38 FuncParamAttr 39 FPRoundingMode
    40 FPFastMathMode 41 LinkageAttributes 42 NoContraction 43 InputAttachmentIndex
    44 Alignment 45 MaxByteOffset 46 AlignmentId 47 MaxByteOffsetId 4469 NoSignedWrap
    4470 NoUnsignedWrap 5602 UserSemantic""")
DEC = {name: num for num, name in DECORATIONS.items()}

BUILTINS = _enum("""24 NumWorkgroups 25 WorkgroupSize 26 WorkgroupId 27 LocalInvocationId
    28 GlobalInvocationId 29 LocalInvocationIndex 30 WorkDim 31 GlobalSize
    32 EnqueuedWorkgroupSize 33 GlobalOffset 34 GlobalLinearId 36 SubgroupSize
    37 SubgroupMaxSize 38 NumSubgroups 39 NumEnqueuedSubgroups 40 SubgroupId
    41 SubgroupLocalInvocationId""")

EXECUTION_MODELS = _enum("""0 Vertex 1 TessellationControl 2 TessellationEvaluation 3 Geometry
    4 Fragment 5 GLCompute 6 Kernel""")
KERNEL_MODEL = 6

EXECUTION_MODES = _enum("""17 LocalSize 18 LocalSizeHint 30 VecTypeHint 31 ContractionOff
    33 Initializer 34 Finalizer 35 SubgroupSize 36 SubgroupsPerWorkgroup 38 LocalSizeId
    39 LocalSizeHintId""")

ADDRESSING_MODELS = _enum("0 Logical 1 Physical32 2 Physical64 5348 PhysicalStorageBuffer64")
MEMORY_MODELS = _enum("0 Simple 1 GLSL450 2 OpenCL 3 Vulkan")
OPENCL_MEMORY_MODEL = 2

CAPABILITIES = _enum("""0 Matrix 1 Shader 2 Geometry 3 Tessellation 4 Addresses 5 Linkage
    6 Kernel 7 Vector16 8 Float16Buffer 9 Float16 10 Float64 11 Int64 12 Int64Atomics
    13 ImageBasic 14 ImageReadWrite 15 ImageMipmap 17 Pipes 18 Groups 19 DeviceEnqueue
    20 LiteralSampler 21 AtomicStorage 22 Int16 38 GenericPointer 39 Int8 44 SampledBuffer
    46 Image1D 57 GroupNonUniform 60 PipeStorage 61 SubgroupDispatch 62 NamedBarrier""")
KERNEL_CAPABILITY = 6
# Capabilities whose features oclpy does not implement: rejected with their names.
UNSUPPORTED_CAPABILITIES = frozenset((0, 1, 2, 3, 13, 14, 15, 17, 19, 20, 44, 46, 60, 61, 62))

ROUNDING_MODES = {0: "rte", 1: "rtz", 2: "rtp", 3: "rtn"}
FUNC_PARAM_ATTRS = _enum("""0 Zext 1 Sext 2 ByVal 3 Sret 4 NoAlias 5 NoCapture 6 NoWrite
    7 NoReadWrite""")
LINKAGE_IMPORT = 1

# Memory operands (OpLoad, OpStore, OpCopyMemory): a mask, then extra literal/id words.
MEMORY_VOLATILE, MEMORY_ALIGNED, MEMORY_NONTEMPORAL = 0x1, 0x2, 0x4
MEMORY_MAKE_AVAILABLE, MEMORY_MAKE_VISIBLE = 0x8, 0x10

# Scope <id> values and memory-semantics bits.
SCOPES = {0: "all_svm_devices", 1: "device", 2: "work_group", 3: "sub_group", 4: "work_item"}
SEM_ACQUIRE, SEM_RELEASE, SEM_ACQ_REL, SEM_SEQ_CST = 0x2, 0x4, 0x8, 0x10
SEM_WORKGROUP_MEMORY, SEM_CROSS_WORKGROUP_MEMORY, SEM_IMAGE_MEMORY = 0x100, 0x200, 0x800
