"""``collabrl plan``: the GPU memory a recipe's GiGPO training needs, per GPU, before it is run.

Why: a paper-scale run (a 7B policy, ZeRO-3, vLLM colocated on the trainer's GPUs) fails minutes
in, after the model loads, when the numbers do not add up. This adds them up from the recipe, the
model's shape and the launch config, says whether they fit, and which knob makes them fit.

What is counted (Ψ = parameters, Ψt = trainable parameters, N = GPUs, e = bytes of a computed
activation: 2 under bf16, 4 in float32):

- trainer weights: the trainer loads float32; DeepSpeed with bf16 casts the module to bf16 (2Ψ,
  ÷N under ZeRO-3); without DeepSpeed they stay float32 (4Ψ; accelerate's bf16 is autocast only);
- reference for the KL term (full fine-tuning with kl_coef > 0; LoRA disables its adapters
  instead): under ZeRO-3 a bf16 DeepSpeed engine (2Ψ/N), otherwise the float32 copy the trainer
  loads (4Ψ on every GPU);
- gradients in the weights' dtype (÷N from ZeRO-2), plus under DeepSpeed bf16 the float32 copy of
  the rank's gradient partition made at the step (4Ψt/N);
- AdamW state: DeepSpeed keeps float32 master weights + both moments, 12Ψt as the ZeRO paper
  counts it (Rajbhandari et al. 2020, section 3), ÷N from ZeRO-1, nothing on the GPU with the
  optimizer offloaded; plain torch keeps the two moments in the weights' dtype (2 x that);
- activations of one micro-batch of B rows, each worst-case long (T = max_prompt_tokens +
  max_new_tokens, K = max_new_tokens + 1 positions with logits), see :func:`activation_bytes`;
- under ZeRO-3, the gathered weights of the unit being computed and the one prefetched;
- vLLM (policy.backend=vllm): it reserves gpu_memory_utilization x the card for its weights (2Ψ
  in bf16), its own activations and CUDA graphs, and the KV cache (the rest); sleep level 1 moves
  its weights to host memory and drops the KV cache during the update, level 2 drops both (the
  push restores the weights); about 0.5 GiB stays;
- the transformers rollout engine generates with the trainer's model: its KV cache is
  batch_size x T x 2 L x kv-width x e;
- 0.5 GiB per process of CUDA context and workspaces (an assumption, not measured here).

The update phase (weights, optimizer, gradients, activations, what vLLM keeps while the trainer
runs) and the rollout phase (the trainer's weights and optimizer state, which stay, plus vLLM's
reservation or the generate KV cache) are summed apart; the larger is the peak.

Checked against measured peaks: tests/training/test_plan.py (tiny models on the CPU, every
tensor's bytes counted) and the GPU suite (torch.cuda.max_memory_allocated at the 0.5B and 1.5B
shapes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from collabrl.training.shapes import ModelShape

GIB = 2**30
CUDA_CONTEXT = GIB // 2  # per process: CUDA context, cuBLAS/cuDNN workspaces (assumed)
VLLM_ASLEEP = GIB // 2  # what a sleeping vLLM keeps (graph pools, its allocator's cache; assumed)
VLLM_GRAPHS = GIB // 2  # CUDA graphs of a vLLM that does not enforce eager mode (assumed)
VLLM_BATCHED_TOKENS = 8192  # vLLM's profile run: max_num_batched_tokens of the offline LLM
FLOAT32 = 4
BF16 = 2


@dataclass(frozen=True)
class Parallel:
    """Processes, ZeRO stage and precision, as the accelerate / DeepSpeed config sets them."""

    gpus: int = 1
    zero: int = 0  # 0: no DeepSpeed (one process or DDP)
    bf16: bool = False  # DeepSpeed bf16 (the module is cast) or accelerate's bf16 autocast
    deepspeed: bool = False
    offload_optimizer: bool = False
    offload_param: bool = False
    cpu: bool = False  # the trainer runs on the CPU (no CUDA context)
    weights_bf16: bool = False  # plain torch with the module already in bf16 (gpu_check.py)
    source: str = "no launch config: one process, float32 (python train.py)"

    @property
    def weight_bytes(self) -> int:
        cast = (self.deepspeed and self.bf16) or self.weights_bf16
        return BF16 if cast else FLOAT32

    @property
    def compute_bytes(self) -> int:
        return BF16 if self.bf16 or self.weights_bf16 else FLOAT32


@dataclass(frozen=True)
class Workload:
    """What one PPO update and one rollout hold, from the recipe."""

    micro_batch: int
    seq: int  # T: prompt + response tokens of the longest row
    kept: int  # K: positions with logits (the response, + 1)
    lora_rank: int | None = None
    lora_targets: list[str] | str = "all-linear"
    lora_dropout: float = 0.0
    reference: bool = True  # the KL term is on (kl_coef > 0): a frozen copy, or LoRA adapters off
    gradient_checkpointing: bool = False
    backend: Literal["transformers", "vllm"] = "transformers"
    vllm_utilization: float = 0.5
    vllm_max_model_len: int | None = None
    vllm_eager: bool = False
    vllm_bf16: bool = True
    sleep_level: int = 0
    generate_batch: int = 1  # the transformers engine's batch_size


# --- the arithmetic -------------------------------------------------------------------------------


def layer_activation_bytes(
    shape: ModelShape, e: int, lora_rank: int | None = None, lora_dropout: bool = False
) -> int:
    """Bytes one decoder layer saves for backward, per token, in HF's Llama/Qwen2 code (counted
    tensor by tensor with saved-tensor hooks on the tiny models):

    - each RMSNorm keeps its float32 input (4 h) and, when its weight trains, the normalised
      value it multiplies (e h);
    - the inputs of q/k/v and of gate/up (e h each: the projections of one input share it);
    - the rotated query, the attention output (e x q width each), the rotated keys and the
      values (e x kv width each), as SDPA saves them;
    - the MLP's gate, silu(gate), up and their product, the down projection's input: 4 e I.

    LoRA (frozen base and norms): the norms keep only their float32 inputs, each adapter's B
    keeps its rank-wide input (7 e r for all-linear); with LoRA dropout each adapted linear keeps
    its own dropped input and its dropout noise (2 e x its input width) instead of the shared
    inputs and the down projection's.
    """
    h, q, kv, i = shape.hidden, shape.q_width, shape.kv_width, shape.intermediate
    attention = e * (2 * q + 2 * kv)
    if lora_rank is None:
        return 2 * (FLOAT32 + e) * h + e * 2 * h + attention + 4 * e * i
    adapters = e * len(shape.linears()) * lora_rank
    if not lora_dropout:
        return 2 * FLOAT32 * h + e * 2 * h + attention + 4 * e * i + adapters
    dropped = 2 * e * sum(a for a, _ in shape.linears().values())
    return 2 * FLOAT32 * h + attention + 3 * e * i + dropped + adapters


def activation_bytes(shape: ModelShape, e: int, work: Workload) -> dict[str, int]:
    """Activations of one micro-batch (B rows of T tokens, K of them with logits).

    saved   = B [T (L x layer + top) + 4 K V]: every layer (:func:`layer_activation_bytes`), the
              final norm and the output head's input (top = (4 + e) h + e h; with LoRA 4 h,
              the head being frozen), and the float32 log-softmax the loss differentiates;
              with gradient checkpointing each layer keeps only its input (e h per token);
    working = max(B T (4 I + 5 h) e, 12 B K V, 2 B T h e) on top: the reference forward of the
              KL term (no gradient; LoRA runs it with the adapters off) holds about 4 I + 5 h
              per token inside a layer, measured; the loss's float32 logits, their scaled copy
              and log-softmax (or their gradients) are 3 x 4 V per position; the backward pass
              itself frees as it goes (measured 0-2 h per token); with gradient checkpointing
              one layer is recomputed and saved again during backward.
    """
    b, t, k = work.micro_batch, work.seq, work.kept
    h, lora = shape.hidden, work.lora_rank is not None
    layer = layer_activation_bytes(shape, e, work.lora_rank, work.lora_dropout > 0)
    top = FLOAT32 * h if lora else (FLOAT32 + e) * h + e * h
    per_token = (e * h if work.gradient_checkpointing else layer) * shape.layers + top
    saved = b * (t * per_token + k * FLOAT32 * shape.vocab)
    reference = b * t * (4 * shape.intermediate + 5 * h) * e if work.reference else 0
    backward = 2 * b * t * h * e + (b * t * layer if work.gradient_checkpointing else 0)
    working = max(reference, 3 * FLOAT32 * b * k * shape.vocab, backward)
    return {"saved": saved, "working": working}


@dataclass
class Part:
    """One line of the plan: bytes per GPU, the phase it counts in, and how it was counted."""

    name: str
    bytes: int
    phase: Literal["both", "update", "activations", "step", "rollout"]
    how: str


@dataclass
class Plan:
    """Per-GPU memory of a training run, by part and by phase."""

    shape: ModelShape
    parallel: Parallel
    work: Workload
    gpu_bytes: int
    parts: list[Part] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    kv_tokens: int | None = None  # vLLM's KV cache, in tokens (None: no vLLM)

    def total(self, phase: str) -> int:
        """Peak of one phase: the parts that stay, plus that phase's own; in the update the
        optimizer step's float32 gradient copy comes after the activations are freed."""
        both = sum(p.bytes for p in self.parts if p.phase == "both")
        if phase == "rollout":
            return both + sum(p.bytes for p in self.parts if p.phase == "rollout")
        update = sum(p.bytes for p in self.parts if p.phase == "update")
        acts = sum(p.bytes for p in self.parts if p.phase == "activations")
        step = sum(p.bytes for p in self.parts if p.phase == "step")
        return both + update + max(acts, step)

    @property
    def peak(self) -> int:
        return max(self.total("update"), self.total("rollout"))

    @property
    def kv_short(self) -> bool:
        """vLLM would refuse to start: its KV cache cannot hold one max-length sequence."""
        return self.kv_tokens is not None and self.kv_tokens < (
            self.work.vllm_max_model_len or self.work.seq
        )

    @property
    def fits(self) -> bool:
        return self.peak <= self.gpu_bytes and not self.kv_short


def count(n: int) -> str:
    """A parameter count: 7.62 B, 4.88 M, 0.44 M."""
    return f"{n / 1e9:.2f} B" if n >= 1e9 else f"{n / 1e6:.2f} M"


def plan_memory(shape: ModelShape, par: Parallel, work: Workload, gpu_bytes: int) -> Plan:
    """Add up the parts; see the module docstring for what each counts."""
    n = par.gpus
    psi = shape.params()
    lora = work.lora_rank is not None
    trainable = shape.lora_params(work.lora_rank, work.lora_targets) if work.lora_rank else psi
    wb, e = par.weight_bytes, par.compute_bytes
    shard = n if par.zero >= 3 else 1
    plan = Plan(shape, par, work, gpu_bytes)
    add = plan.parts.append

    def gib(x: float) -> str:
        return f"{x / GIB:.2f} GiB"

    where = "host memory" if par.offload_param else f"{wb}Ψ" + (f"/{n}" if shard > 1 else "")
    held = psi + trainable if lora else psi  # LoRA: the base and the adapters
    weights = 0 if par.offload_param else held * wb // shard
    base = "frozen base + adapters" if lora else "policy"
    add(
        Part(
            f"trainer weights ({base})",
            weights,
            "both",
            f"{where}, Ψ = {count(psi)}" + (f" + {count(trainable)} adapters" if lora else ""),
        )
    )
    if work.reference and not lora:
        if par.zero >= 3:
            add(Part("reference model", psi * BF16 // n, "both", f"2Ψ/{n}: a bf16 ZeRO-3 engine"))
        else:
            add(
                Part(
                    "reference model",
                    psi * FLOAT32,
                    "both",
                    "4Ψ: the float32 copy, whole on each GPU",
                )
            )
    elif lora:
        plan.notes.append("LoRA: the reference is the base model with adapters disabled (no copy)")
    else:
        plan.notes.append("kl_coef = 0: no reference model")
    grad_shard = n if par.zero >= 2 else 1
    add(
        Part(
            "gradients",
            trainable * wb // grad_shard,
            "update",
            f"{wb}Ψt" + (f"/{n}" if grad_shard > 1 else "") + f", Ψt = {count(trainable)}",
        )
    )
    if par.deepspeed and par.bf16:
        add(
            Part(
                "fp32 gradient partition at the step", trainable * FLOAT32 // n, "step", f"4Ψt/{n}"
            )
        )
    if par.offload_optimizer:
        add(Part("AdamW state", 0, "both", "offloaded to host memory"))
    elif par.deepspeed:
        opt_shard = n if par.zero >= 1 else 1
        add(
            Part(
                "AdamW state",
                12 * trainable // opt_shard,
                "both",
                "12Ψt" + (f"/{n}" if opt_shard > 1 else "") + ": fp32 master + m + v",
            )
        )
    else:
        add(
            Part(
                "AdamW state",
                2 * wb * trainable,
                "both",
                f"{2 * wb}Ψt: m + v in the weights' dtype",
            )
        )
        step = "torch's foreach AdamW: about one copy of the trained weights"
        add(Part("AdamW step temporaries", wb * trainable, "step", step))
    acts = activation_bytes(shape, e, work)
    gc = ", gradient checkpointing" if work.gradient_checkpointing else ""
    add(
        Part(
            "activations saved for backward",
            acts["saved"],
            "activations",
            f"B={work.micro_batch} x T={work.seq} (K={work.kept} with logits), e={e}{gc}",
        )
    )
    add(
        Part(
            "activations: backward working set",
            acts["working"],
            "activations",
            "max(reference forward, loss logits, backward)",
        )
    )
    if par.zero >= 3:
        unit = max(shape.layer_params(), shape.embedding_params())
        add(
            Part(
                "ZeRO-3 gathered weights",
                2 * unit * BF16,
                "activations",
                "the largest unit computed + the one prefetched, bf16",
            )
        )
    if not par.cpu:
        add(Part("CUDA context and workspaces", CUDA_CONTEXT, "both", "assumed, per process"))
    if work.backend == "vllm":
        _vllm_parts(plan, shape, work, psi)
    else:
        context = work.generate_batch * work.seq
        add(
            Part(
                "generate KV cache (transformers engine)",
                context * shape.kv_bytes_per_token(e),
                "rollout",
                f"batch {work.generate_batch} x T x 2L x kv x e",
            )
        )
    return plan


def _vllm_parts(plan: Plan, shape: ModelShape, work: Workload, psi: int) -> None:
    """vLLM's reservation, its split, and what sleep leaves during the update."""
    reserve = int(work.vllm_utilization * plan.gpu_bytes)
    dsize = BF16 if work.vllm_bf16 else FLOAT32
    weights = psi * dsize
    tokens = min(VLLM_BATCHED_TOKENS, work.vllm_max_model_len or work.seq)
    own = tokens * (2 * shape.intermediate + 4 * shape.hidden) * dsize
    graphs = 0 if work.vllm_eager else VLLM_GRAPHS
    kv = reserve - weights - own - graphs
    per_token = shape.kv_bytes_per_token(dsize)
    plan.kv_tokens = max(kv, 0) // per_token
    g = f"{work.vllm_utilization:.2f} x {plan.gpu_bytes / GIB:.0f} GiB"
    plan.parts.append(
        Part("vLLM reservation (rollout)", reserve, "rollout", f"gpu_memory_utilization {g}")
    )
    length = work.vllm_max_model_len or work.seq
    plan.notes.append(
        f"vLLM's share: weights {weights / GIB:.2f} GiB, own activations {own / GIB:.2f} GiB "
        f"({tokens} batched tokens), CUDA graphs {graphs / GIB:.2f} GiB, KV cache "
        f"{max(kv, 0) / GIB:.2f} GiB = {plan.kv_tokens:,} tokens "
        f"({plan.kv_tokens // length} sequences of {length})"
    )
    level = work.sleep_level
    if level == 0:
        plan.parts.append(
            Part(
                "vLLM during the update (no sleep)",
                reserve,
                "update",
                "the whole reservation stays",
            )
        )
    else:
        freed = (
            "weights to host memory, KV cache dropped"
            if level == 1
            else "weights and KV cache dropped"
        )
        plan.parts.append(
            Part(
                f"vLLM during the update (sleep level {level})",
                VLLM_ASLEEP,
                "update",
                f"{freed}; about 0.5 GiB stays",
            )
        )
        if level == 1:
            plan.notes.append(
                f"sleep level 1 holds vLLM's weights in host memory: {weights / GIB:.2f} GiB per GPU"
            )
    plan.notes.append(
        f"sleep frees {max(reserve - VLLM_ASLEEP, 0) / GIB:.2f} GiB per GPU during the update (level 1: "
        f"{weights / GIB:.2f} GiB of it copied to host memory; level 2: nothing copied, the push "
        "restores the weights)"
    )
