#!/bin/sh
# cli_bank.sh: the bank features of issue 19 through the cudalab process: lint's kinds and
# --stats, lint's Chinese style checks, rubric feedback naming the missed points in the
# reader's language, generated questions drawing fresh numbers in quiz and review, and exam
# papers fixed by their seed. Usage: cli_bank.sh <cudalab> <fixtures>
set -u
CUDALAB=$1
FX=$2
RB="$FX/rubric"
. "$(dirname "$0")/cli_common.sh"

# ---- lint: kinds, stats, variants, style ------------------------------------------------
"$CUDALAB" lint --questions-only --bank "$RB" --stats >out 2>err; status_is $? 0 "lint rubric bank"
has err "kinds: 0 recall, 1 understand, 2 apply, 0 analyse (67% apply or analyse)" "lint kinds"
has err "ok: 3 questions (1 generated) in 1 topic file" "lint rubric bank"
has out "| \`softmax\` | 3 | 0 | 1 | 2 | 0 | 1 | 67% |" "lint --stats"
"$CUDALAB" lint --questions-only --bank "$RB" --samples 400 >out 2>err; status_is $? 0 "lint --samples 400"
"$CUDALAB" lint --questions-only --bank "$FX/style" >out 2>err; status_is $? 1 "lint style"
has out "question 'fx-style-comma': prompt.zh: ASCII punctuation after Chinese text" "lint style comma"
has out "question 'fx-style-comma': explanation.zh: a space between Chinese characters" "lint style folding"
has out "question 'fx-style-unit': explanation.zh: an English unit in Chinese text" "lint style unit"
has err "3 problems" "lint style"

# ---- short answers: key points named in the reader's language ----------------------------
printf '先减去最大值\n' | "$CUDALAB" quiz --bank "$RB" --id fx-softmax-stable --lang zh --no-record >out 2>err
status_is $? 0 "quiz zh short"
has out "部分正确（50%）。" "quiz zh partial"
has out "命中要点：1 个（需要 2 个）（减去行最大值）；缺少：结果不变" "quiz zh points"
hasnt out "missing" "quiz zh points"
printf 'subtract the max\n' | "$CUDALAB" quiz --bank "$RB" --id fx-softmax-stable --lang en --no-record >out 2>err
has out "Key points found: 1 of the 2 needed (subtract the row maximum); missing: the result does not change" "quiz en points"
printf '64*65*4 = 16640 字节，填充避免存储体冲突\n' | "$CUDALAB" quiz --bank "$RB" --id fx-smem-bytes --lang zh --no-record >out 2>err
has out "正确。" "quiz number point"
printf '16000 bytes\n' | "$CUDALAB" quiz --bank "$RB" --id fx-smem-bytes --no-record >out 2>err
has out "Wrong." "quiz number point outside tolerance"
has out "missing: 16640 bytes, padding against bank conflicts" "quiz number point missing"

# ---- generated questions: a fresh draw each time, one family card in review ----------------
printf '\n' | "$CUDALAB" quiz --bank "$RB" --id fx-gen-grid --seed 11 --no-record >q11 2>err
printf '\n' | "$CUDALAB" quiz --bank "$RB" --id fx-gen-grid --seed 11 --no-record >q11b 2>err
printf '\n' | "$CUDALAB" quiz --bank "$RB" --id fx-gen-grid --seed 12 --no-record >q12 2>err
cmp -s q11 q11b || fail "quiz --seed 11 twice: different questions"
if cmp -s q11 q12; then fail "quiz --seed 11 and 12: the same generated question"; fi
printf '1\n' | "$CUDALAB" quiz --bank "$RB" --id fx-gen-grid >first 2>err
has first "1 question added to your review deck" "family missed"
printf '\n' | "$CUDALAB" review --all --bank "$RB" >rev 2>err; status_is $? 0 "review the family"
has rev "review · Softmax fixtures · fx-gen-grid" "review asks the family (its topic by title)"
# the review draw is another instance than the quiz's
sed -n '/fx-gen-grid/,/Enter skips/p' first | sed 1d >p1
sed -n '/fx-gen-grid/,/Enter skips/p' rev | sed 1d >p2
if cmp -s p1 p2; then fail "review repeated the quiz's frozen instance"; fi

# ---- exam: the paper is a function of its seed ----------------------------------------------
"$CUDALAB" exam --bank "$RB" --seed 5 --n 3 --paper --key >paper1 2>err; status_is $? 0 "exam paper"
"$CUDALAB" exam --bank "$RB" --seed 5 --n 3 --paper --key >paper2 2>err
cmp -s paper1 paper2 || fail "exam --seed 5 twice: different papers"
"$CUDALAB" exam --bank "$RB" --seed 5 --n 3 --paper --key --lang zh >paperzh 2>err
has paperzh "评分：需命中 2 个要点：16640 字节 [16640 ± 0]，填充以避免存储体冲突 [" "exam key rubric (zh)"
"$CUDALAB" exam --bank "$RB" --seed 5 --n 3 --paper --key --lang en >paperen 2>err
has paperen "Rubric: 2 of these key points: subtract the row maximum [subtract the max" "exam key rubric (en)"

[ "$FAILS" -eq 0 ] && echo "cli_bank: all checks passed"
exit "$FAILS"
