# Cross-entropy loss per row of a [rows, V] matrix of logits with integer labels:
#   loss[r] = logsumexp(logits[r, :]) - logits[r, labels[r]]
# One program per row. The vocabulary V can be much larger than a block, so the row is read
# in chunks of BLOCK_SIZE with an "online" logsumexp: a running max m and a running sum s of
# exp(x - m), rescaled whenever the max grows. Grid (rows,):
#   bin/tilec examples/cross_entropy.py -k cross_entropy_fwd -s "*fp32:16, *i64:16, *fp32:16, i32, i32, 4096" -w 8 -o xent_fp32.cu
#   bin/tilec examples/cross_entropy.py -k cross_entropy_fwd -s "*bf16:16, *i64:16, *fp32:16, i32, i32, 2048" -w 8 -o xent_bf16.cu

import torch

import triton
import triton.language as tl


@triton.jit
def cross_entropy_fwd(logits_ptr, labels_ptr, loss_ptr, stride, V, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    # rows * V can pass 2**31 for large vocabularies: do the row offset in 64 bits.
    row_ptr = logits_ptr + row.to(tl.int64) * stride
    m = -float('inf')      # running max of the logits seen so far (an fp32 scalar)
    s = 0.0                # running sum of exp(logit - m)
    for start in range(0, V, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(row_ptr + cols, mask=cols < V, other=-float('inf')).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        # Terms summed under the old max are scaled by exp(m - m_new) <= 1 (0 on the
        # first chunk, where m is -inf and s is 0).
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    label = tl.load(labels_ptr + row)
    x_label = tl.load(row_ptr + label).to(tl.float32)
    loss = tl.log(s) + m - x_label
    tl.store(loss_ptr + row, loss)


def cross_entropy(logits: torch.Tensor, labels: torch.Tensor, block_size: int = 4096):
    rows, V = logits.shape
    loss = torch.empty(rows, device=logits.device, dtype=torch.float32)
    cross_entropy_fwd[(rows, )](logits, labels, loss, logits.stride(0), V,
                                BLOCK_SIZE=block_size, num_warps=8)
    return loss


if __name__ == "__main__":
    torch.manual_seed(0)
    logits = torch.randn(513, 32000, device="cuda") * 3
    labels = torch.randint(0, 32000, (513, ), device="cuda")
    ref = torch.nn.functional.cross_entropy(logits, labels, reduction="none")
    print("cross_entropy max err:", (cross_entropy(logits, labels) - ref).abs().max().item())
