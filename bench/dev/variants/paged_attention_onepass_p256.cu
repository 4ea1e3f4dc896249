// paged_attention_onepass_p256.cu: the one-pass candidate with 256-token partitions
// (twice the CTAs: a shorter tail, twice the partial results).
#define PA1_PART 256
#include "paged_attention_onepass.cu"
