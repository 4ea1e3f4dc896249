#!/bin/sh
# cli_scripted.sh: every question mode of the cudalab CLI, driven by --answers files and
# standard input, against the fixture banks. Usage: cli_scripted.sh <cudalab> <fixtures> <home>
set -u
CUDALAB=$1
FX=$2
HOME_DIR=$3
GOOD="$FX/good"
. "$(dirname "$0")/cli_common.sh"

# ---- lint -----------------------------------------------------------------------------
"$CUDALAB" lint --questions-only --bank "$GOOD" >out 2>err; status_is $? 0 "lint good"
has err "ok: 10 questions (3 generated) in 2 topic files" "lint good"
"$CUDALAB" lint "$FX/bad/schema_errors.yaml" "$FX/bad/text_errors.yaml" >out 2>err; status_is $? 1 "lint bad"
has out "$FX/bad/schema_errors.yaml:28:17: difficulty must be 1..5, not 7" "lint bad"
has out "$FX/bad/text_errors.yaml:15:13: prompt: missing 'zh'" "lint bad"
has err "15 problems" "lint bad"
"$CUDALAB" lint --questions-only --bank "$GOOD" --seeds "$FX/seeds.md" >out 2>err; status_is $? 1 "lint seeds"
has out "$FX/seeds.md:6: seed 000:04 is not covered by any question" "lint seeds"
hasnt out "000:05" "lint seeds (out of scope)"
hasnt out "000:06" "lint seeds (covered by a lab)"
"$CUDALAB" lint --questions-only --bank "$GOOD" --seed-map >out 2>err; status_is $? 0 "seed map"
has out "| 000:03 | \`fx-mem-banks\` |" "seed map"

# ---- quiz: --answers FILE and standard input ----------------------------------------------
printf 'b\n16\n1\n' >answers.txt
"$CUDALAB" quiz --bank "$GOOD" --id fx-mem-banks,fx-mem-float4,fx-warp-size --seed 1 --answers answers.txt >out 2>err
status_is $? 0 "quiz --answers"
# the answers are echoed (a transcript) and graded: 16 and b are right; 1 thread per warp is not
has out "> b" "quiz --answers"
has out "Score: 2.0/3 (67%)" "quiz --answers"
has out "1 question added to your review deck" "quiz --answers"
printf '32\n' | "$CUDALAB" quiz --bank "$GOOD" --id fx-warp-size --seed 1 --no-record >out 2>err
status_is $? 0 "quiz stdin"
has out "Right." "quiz stdin"
has out "Score: 1.0/1" "quiz stdin"
# an unreadable scripted answer is reported and not counted (skipped, no lapse); the run goes on
printf 'zebra\n' | "$CUDALAB" quiz --bank "$GOOD" --id fx-mem-banks --seed 1 --no-record >out 2>err
has out "Could not read 'zebra'" "quiz unreadable"
has out "Score: 0.0/1" "quiz unreadable"
has out "0 wrong · 1 skipped" "quiz unreadable: not counted as wrong"
# the language follows --lang, else the locale
printf '\n' | LANG=zh_CN.UTF-8 "$CUDALAB" quiz --bank "$GOOD" --id fx-warp-size --no-record >out 2>err
has out "一个 warp 有多少个线程" "quiz zh locale"
has out "已跳过" "quiz zh locale"
printf '\n' | LANG=zh_CN.UTF-8 "$CUDALAB" quiz --bank "$GOOD" --id fx-warp-size --lang en --no-record >out 2>err
has out "How many threads are in a warp?" "quiz --lang en beats the locale"
"$CUDALAB" quiz --bank "$GOOD" --topic nope </dev/null >out 2>err; status_is $? 2 "quiz bad topic"
has err "no topic 'nope' (topics: memory, warps)" "quiz bad topic"
# the same seed repeats the same quiz, generated numbers included
"$CUDALAB" quiz --bank "$GOOD" --n 10 --seed 77 --no-record </dev/null >q1 2>&1
"$CUDALAB" quiz --bank "$GOOD" --n 10 --seed 77 --no-record </dev/null >q2 2>&1
cmp -s q1 q2 || fail "quiz --seed is not repeatable"

# a progress database that cannot be created (its folder does not exist): the quiz goes on
printf '32\n' | CUDALAB_DB="$WORK/ro/progress.db" "$CUDALAB" quiz --bank "$GOOD" --id fx-warp-size >out 2>err
status_is $? 0 "quiz without a database"
has err "progress will not be saved" "quiz without a database"
has out "Score: 1.0/1" "quiz without a database"

# ---- review ---------------------------------------------------------------------------------
"$CUDALAB" review --status >out 2>err; status_is $? 0 "review status"
has out "Review deck: 1 card, 0 due now; the next one is due in 10 minutes" "review status"
"$CUDALAB" review --bank "$GOOD" </dev/null >out 2>err
has out "Nothing due: 1 card in the deck, the next one is due in 10 minutes" "review nothing due"
NOW=$(( $(date +%s) + 700 ))
printf '32\n' | CUDALAB_NOW=$NOW "$CUDALAB" review --bank "$GOOD" >out 2>err; status_is $? 0 "review"
has out "review · Warps (fixture) · fx-warp-size" "review (the topic by its title)"
has out "Reviewed: 1.0/1 (100%)" "review"
CUDALAB_NOW=$NOW "$CUDALAB" review --status >out 2>err
has out "Review deck: 1 card, 0 due now; the next one is due in" "review rescheduled"
has out "is due in 24 hours" "review rescheduled a day later (the shortest interval)"
printf '1\n' | "$CUDALAB" review --bank "$GOOD" --all --answers - >out 2>err
has out "Reviewed: 0.0/1" "review --all"

# ---- exam ---------------------------------------------------------------------------------
"$CUDALAB" exam --bank "$GOOD" --n 6 --paper >out 2>err; status_is $? 2 "exam without seed"
has err "--seed is required" "exam without seed"
"$CUDALAB" exam --bank "$GOOD" --seed 42 --n 6 --paper >paper1.md 2>err; status_is $? 0 "exam paper"
"$CUDALAB" exam --bank "$GOOD" --seed 42 --n 6 --paper >paper2.md 2>err
cmp -s paper1.md paper2.md || fail "exam paper differs for the same seed"
"$CUDALAB" exam --bank "$GOOD" --seed 43 --n 6 --paper >paper3.md 2>err
cmp -s paper1.md paper3.md && fail "exam paper is the same for another seed"
"$CUDALAB" exam --bank "$GOOD" --seed 42 --n 6 --paper --key >key.md 2>err
has key.md "**Key:**" "exam key"
printf 'a\nb\nc\nd\ne\nf\n' | "$CUDALAB" exam --bank "$GOOD" --seed 42 --n 6 --student alice --out alice.txt >out 2>err
status_is $? 0 "exam take"
has out "6 of 6 answered; the sheet is alice.txt" "exam take"
hasnt out "Right." "exam take (no feedback)"
has alice.txt "student: alice" "exam sheet"
has alice.txt "seed: 42" "exam sheet"
printf 'b\n' | "$CUDALAB" exam --bank "$GOOD" --seed 42 --n 6 --student bob --out bob.txt >out 2>err
has out "1 of 6 answered" "exam interrupted"
# sitting it again resumes: the first answer is kept, the other five are asked
printf 'x\ny\n' | "$CUDALAB" exam --bank "$GOOD" --seed 42 --n 6 --student bob --out bob.txt >out 2>err
status_is $? 0 "exam resumed"
has out "Resuming: 1 answer already on bob.txt" "exam resumed"
has out "3 of 6 answered" "exam resumed"
grep -q "^1 [a-z0-9-]*: b$" bob.txt || fail "exam resumed: the first answer was lost"
# a sheet of another student is never overwritten
printf 'z\n' | "$CUDALAB" exam --bank "$GOOD" --seed 42 --n 6 --student eve --out bob.txt >out 2>err
status_is $? 2 "exam refuses to overwrite"
has err "holds another paper's or another student's answers" "exam refuses to overwrite"
grep -q "^student: bob$" bob.txt || fail "exam overwrote bob's sheet"
"$CUDALAB" exam --bank "$GOOD" --seed 42 --n 6 --blank carol.txt --student carol >out 2>err; status_is $? 0 "exam blank"
"$CUDALAB" exam --bank "$GOOD" --grade alice.txt bob.txt carol.txt --csv grades.csv >out 2>err
status_is $? 0 "exam grade"
has grades.csv "student,file,seed,score,max,percent,1:" "exam csv header"
has grades.csv "carol,carol.txt,42,0,6,0.0" "exam csv row"
[ "$(wc -l <grades.csv)" -eq 4 ] || fail "exam csv: expected 4 lines"
"$CUDALAB" exam --bank "$GOOD" --grade alice.txt --long >long.csv 2>err; status_is $? 0 "exam long"
[ "$(wc -l <long.csv)" -eq 7 ] || fail "exam long csv: expected 7 lines"
sed 's/^1 [a-z0-9-]*:/1 not-on-this-paper:/' alice.txt >mallory.txt
"$CUDALAB" exam --bank "$GOOD" --grade mallory.txt alice.txt >out 2>err; status_is $? 1 "exam bad sheet"
has err "mallory.txt:11: question 1 of this paper is" "exam bad sheet"
has out "alice,alice.txt,42" "exam bad sheet: the good sheet is still graded"

# ---- interview (theory only; all answers right, then all wrong) ------------------------------
yes 1 | head -20 >right.txt
"$CUDALAB" interview --bank "$FX/ramp" --no-lab --questions 5 --seed 3 --answers right.txt >out 2>err
status_is $? 0 "interview strong"
has out "difficulty 2 · ramp-d2" "interview starts at 2"
has out "difficulty 5 · ramp-d5" "interview ramps up"
has out "level reached 5/5" "interview ramps up"
hasnt out "[follow-up" "interview strong: no follow-up"
has out "score 100%" "interview strong"
yes 0 | head -20 >wrong.txt
"$CUDALAB" interview --bank "$FX/ramp" --no-lab --questions 3 --seed 3 --answers wrong.txt >out 2>err
status_is $? 0 "interview weak"
has out "[follow-up" "interview weak: follow-up"
has out "level reached 1/5" "interview ramps down"
has out "Weakest areas: Ramp" "interview scorecard (the topic by its title)"
has out "cudalab quiz --topic warps" "interview study next (the topic by its id)"
has out "cudalab quiz --id ramp-d2-" "interview study next"
# the scorecard also goes to the progress database
printf 'b\n' | "$CUDALAB" interview --bank "$GOOD" --no-lab --questions 1 --seed 9 >out 2>err
has out "== Scorecard ==" "interview good bank"

# ---- interview with its coding lab (the real reduce lab of this source tree) ------------------
# no GPU: the workspace is fetched and the scorecard says how to grade it later
printf '1\n1\n\n' | CUDALAB_HOME="$HOME_DIR" "$CUDALAB" interview --bank "$FX/ramp" --questions 2 --seed 4 \
    --lab reduce --workspace "$WORK/ws1" >out 2>err
status_is $? 0 "interview lab"
has out "Coding exercise: Sum reduction" "interview lab"
has out "verdict: not graded — grading needs a GPU" "interview lab"
has out "cd $WORK/ws1/reduce && cudalab test" "interview lab"
[ -f "$WORK/ws1/reduce/reduce.cu" ] || fail "interview lab: no workspace at $WORK/ws1/reduce"
# skipping the lab
printf '1\n1\nskip\n' | CUDALAB_HOME="$HOME_DIR" "$CUDALAB" interview --bank "$FX/ramp" --questions 2 --seed 4 \
    --lab reduce --workspace "$WORK/ws2" >out 2>err
has out "verdict: skipped" "interview lab skipped"
# "a GPU is present" (a stand-in nvidia-smi): the workspace is graded by `cudalab test` in
# a child process and its verdict reaches the scorecard (no_device on a machine without a
# GPU, wrong for the untouched skeleton on one with a GPU)
mkdir -p fakebin && printf '#!/bin/sh\nexit 0\n' >fakebin/nvidia-smi && chmod +x fakebin/nvidia-smi
printf '1\n1\n\n' | env -u CUDALAB_GPU PATH="$WORK/fakebin:$PATH" CUDALAB_HOME="$HOME_DIR" "$CUDALAB" interview \
    --bank "$FX/ramp" --questions 2 --seed 4 --lab reduce --workspace "$WORK/ws3" >out 2>err
has out "cudalab test: " "interview lab graded"
grep -Eq "verdict: (no_device|wrong|compile_error)" out || fail "interview lab graded: no verdict from cudalab test"
# no labs at all: the interview still ends with a scorecard
printf '1\n1\n\n' | CUDALAB_HOME="$WORK" "$CUDALAB" interview --bank "$FX/ramp" --questions 2 --seed 4 >out 2>err
has out "No coding exercise:" "interview without labs"
has out "== Scorecard ==" "interview without labs"

if [ "$FAILS" -ne 0 ]; then
    echo "$FAILS check(s) failed"
    exit 1
fi
echo "cli scripted: ok"
