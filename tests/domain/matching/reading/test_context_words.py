"""What people type in the context fields, read: framework names with versions, parentheses
and extra words; phase words and their synonyms; GPU counts as people write them. A table
of the spellings issue trackers' templates and reporters use, each with what it names."""

from __future__ import annotations

import pytest

from failref.domain.matching.reading.context_words import (
    framework_names,
    gpu_count,
    gpu_model,
    phase_names,
)

FRAMEWORKS = [
    ("vLLM 0.8 (OpenAI server)", {"vllm"}),
    ("vllm==0.6.3.post1", {"vllm"}),
    ("vLLM v0.10.1 with V1 engine", {"vllm"}),
    ("vllm serve", {"vllm"}),
    ("SGLang 0.4.4.post3", {"sglang"}),
    ("sglang: 0.5.6", {"sglang"}),
    ("TensorRT-LLM v0.12.0", {"tensorrt-llm"}),
    ("TensorRT LLM 1.0", {"tensorrt-llm"}),
    ("trtllm-serve", {"tensorrt-llm"}),
    ("TRT-LLM", {"tensorrt-llm"}),
    ("text-generation-inference 2.0", {"text-generation-inference"}),
    ("TGI 3.1", {"text-generation-inference"}),
    ("llama.cpp b4500", {"llama.cpp"}),
    ("DeepSpeed 0.14.4", {"deepspeed"}),
    ("deepspeed ZeRO-3 offload", {"deepspeed"}),
    ("ZeRO-2", {"deepspeed"}),
    ("Megatron-LM core_r0.8.0", {"megatron"}),
    ("Megatron-Core 0.9", {"megatron"}),
    ("megatron", {"megatron"}),
    ("NeMo 2.0", {"megatron"}),
    ("PyTorch Lightning 2.1", {"lightning", "pytorch"}),
    ("pytorch-lightning==1.9.5", {"lightning", "pytorch"}),
    ("lightning 2.4 (Fabric)", {"lightning"}),
    ("accelerate 0.34 + DeepSpeed", {"accelerate", "deepspeed"}),
    ("HF Trainer", {"transformers"}),
    ("transformers 4.44.2", {"transformers"}),
    ("Hugging Face transformers", {"transformers"}),
    ("TRL 0.12 (GRPOTrainer)", {"trl"}),
    ("peft LoRA", {"peft"}),
    ("unsloth 2025.3", {"unsloth"}),
    ("LLaMA-Factory 0.9.1", {"llamafactory"}),
    ("LlamaFactory", {"llamafactory"}),
    ("verl 0.3 + vLLM rollout", {"verl", "vllm"}),
    ("OpenRLHF", {"openrlhf"}),
    ("Ray 2.40 (Ray Serve)", {"ray"}),
    ("torchtitan", {"torchtitan"}),
    ("torchtune 0.5", {"torchtune"}),
    ("ColossalAI 0.4", {"colossalai"}),
    ("JAX 0.4.30", {"jax"}),
    ("MaxText on JAX", {"jax"}),
    ("TensorFlow 2.15", {"tensorflow"}),
    ("keras 3", {"tensorflow"}),
    ("PaddlePaddle 2.6", {"paddlepaddle"}),
    ("PyTorch 2.5.1", {"pytorch"}),
    ("torch==2.4.0+cu121", {"pytorch"}),
    ("PyTorch DDP (torchrun)", {"pytorch", "torchrun"}),
    ("FSDP2", {"pytorch"}),
    ("PyTorch FSDP", {"pytorch"}),
    ("torch.distributed.launch", {"pytorch", "torchrun"}),
    ("NCCL 2.21.5", {"nccl"}),
    ("CUDA 12.4", {"cuda"}),
    ("flash-attn 2.6.3", {"flash-attn"}),
    ("FlashAttention-2", {"flash-attn"}),
    ("Transformer Engine 1.9", {"transformer-engine"}),
    ("Triton 3.1", {"triton"}),
    ("our own trainer", set()),
    ("custom C++ server", set()),
]

PHASES = [
    ("training", {"training"}),
    ("pre-training", {"training"}),
    ("pretraining", {"training"}),
    ("continued pretraining", {"training"}),
    ("training (step 61)", {"training"}),
    ("first step", {"training"}),
    ("after ~2000 iterations", {"training"}),
    ("epoch 3", {"training"}),
    ("backward pass", {"training"}),
    ("distillation", {"training"}),
    ("SFT", {"fine-tuning"}),
    ("fine-tuning", {"fine-tuning"}),
    ("finetune", {"fine-tuning"}),
    ("LoRA fine-tune", {"fine-tuning"}),
    ("QLoRA", {"fine-tuning"}),
    ("DPO", {"fine-tuning"}),
    ("post-training", {"fine-tuning"}),
    ("RLHF", {"fine-tuning", "inference"}),
    ("GRPO training", {"fine-tuning", "inference", "training"}),
    ("PPO rollouts", {"fine-tuning", "inference"}),
    ("inference", {"inference"}),
    ("serving", {"inference"}),
    ("online serving", {"inference"}),
    ("deployment", {"inference"}),
    ("in production", {"inference"}),
    ("benchmark", {"inference"}),
    ("benchmarking throughput", {"inference"}),
    ("load test", {"inference"}),
    ("inference (load test)", {"inference"}),
    ("offline batch inference", {"inference"}),
    ("generation", {"inference"}),
    ("decoding", {"inference"}),
    ("prefill", {"inference"}),
    ("chat completions", {"inference"}),
    ("startup", {"startup"}),
    ("start-up", {"startup"}),
    ("startup (two nodes)", {"startup"}),
    ("initialization", {"startup"}),
    ("init", {"startup"}),
    ("launching the job", {"startup"}),
    ("model loading", {"startup"}),
    ("loading weights", {"startup"}),
    ("warmup", {"startup"}),
    ("CUDA graph capture", {"startup"}),
    ("checkpoint save", {"checkpointing"}),
    ("saving checkpoints", {"checkpointing"}),
    ("resuming", {"checkpointing"}),
    ("torch.compile", {"compilation"}),
    ("compiling", {"compilation"}),
    ("engine build", {"compilation"}),
    ("data loading", {"data-loading"}),
    ("dataloader", {"data-loading"}),
    ("tokenization", {"data-loading"}),
    ("eval", {"training", "inference"}),
    ("validation", {"training", "inference"}),
    ("the third day", set()),
]

GPU_COUNTS = [
    ("8", 8, None),
    (" 8 ", 8, None),
    ("8x H100", 8, "H100"),
    ("8xH100 80GB HBM3", 8, "H100"),
    ("8 x A100 80GB", 8, "A100"),
    ("4xA100", 4, "A100"),
    ("H100 x 8", 8, "H100"),
    ("A100-SXM4-80GB x 4", 4, "A100"),
    ("2 x 8", 16, None),
    ("2x8xH100", 16, "H100"),
    ("2 nodes x 8 GPUs", 16, None),
    ("2 nodes of 8", 16, None),
    ("16 GPUs (2 nodes)", 16, None),
    ("8 (tensor_parallel_size=8)", 8, None),
    ("tp=4", 4, None),
    ("tensor_parallel_size: 2", 2, None),
    ("world_size=32", 32, None),
    ("8 GPUs", 8, None),
    ("eight GPUs", 8, None),
    ("single GPU", 1, None),
    ("one GPU", 1, None),
    ("dual GPU", 2, None),
    ("1x80GB", 1, None),
    ("4 cards", 4, None),
    ("RTX 4090", None, "RTX4090"),
    ("single node", None, None),
    ("multi-gpu host", None, None),
    ("lots", None, None),
    ("1e3", None, None),
    ("-1", None, None),
]


@pytest.mark.parametrize(("text", "names"), FRAMEWORKS, ids=[t for t, _ in FRAMEWORKS])
def test_a_framework_field_names_what_it_names(text: str, names: set[str]) -> None:
    assert set(framework_names(text)) == names


@pytest.mark.parametrize(("text", "phases"), PHASES, ids=[t for t, _ in PHASES])
def test_a_phase_field_reads_as_its_canonical_phases(text: str, phases: set[str]) -> None:
    assert set(phase_names(text)) == phases


@pytest.mark.parametrize(("text", "count", "gpu"), GPU_COUNTS, ids=[t for t, _, _ in GPU_COUNTS])
def test_a_gpu_field_reads_as_a_count_and_a_model(
    text: str, count: int | None, gpu: str | None
) -> None:
    assert gpu_count(text) == count
    assert gpu_model(text) == gpu


def test_the_table_holds_at_least_a_hundred_spellings() -> None:
    assert len(FRAMEWORKS) + len(PHASES) + len(GPU_COUNTS) >= 100
