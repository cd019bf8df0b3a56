# frozen_string_literal: true

# Records a real run's rounds for bench/decision_replay.rb (issue 42, item
# 5: replay more than one workload, one of them beside foreign load). Reads
# a run directory of two setups on one cell (`rackbench run -s A -s B -e E
# -c N -r 40`), and writes its per-round req/s (setups sorted by label, A
# first, as bench/data/decision_rounds.json holds them) under NAME in
# bench/data/replay_rounds.json, with what the run was: its command, its
# date, and the foreign load its trials measured (the machine's CPU taken
# by processes that were neither rackbench's nor the servers' nor the load
# generator's, per trial: median and maximum in % of one core), so the
# replay can say beside what the rounds were measured.
#
#   bundle exec ruby -Ilib bench/record_rounds.rb RUN_DIR NAME
#
# Only rounds in which both setups have an ok trial are kept (a failed boot
# leaves its round out: the replay pairs by round).

require "json"
require "rackbench"

dir, name = ARGV
abort "usage: bench/record_rounds.rb RUN_DIR NAME" unless dir && name

store = Rackbench::Store::RunDir.new(dir)
trials = store.trials.select { |t| t["rps"] }
cells = trials.map { |t| [t["endpoint"], t["concurrency"]] }.uniq
abort "#{dir}: one cell expected, found #{cells.size}" unless cells.size == 1
setups = trials.map { |t| t["setup"] }.uniq.sort
abort "#{dir}: two setups expected, found #{setups.size}" unless setups.size == 2

by_round = trials.group_by { |t| t["repetition"] }.sort.filter_map do |_, ts|
  row = setups.map { |s| ts.find { |t| t["setup"] == s }&.fetch("rps") }
  row.all? ? row.map { |x| x.round(2) } : nil
end
foreign = trials.filter_map { |t| t.dig("machine", "foreign_pct") }.sort
median = foreign.empty? ? nil : foreign[foreign.size / 2]
meta = store.meta
argv = meta["argv"].first == "rackbench" ? meta["argv"] : ["rackbench", *meta["argv"]]
endpoint, level = cells.first
entry = {
  "label" => "#{setups[0]} against #{setups[1]} on #{endpoint} c=#{level}",
  "setups" => setups,
  "made" => "`#{argv.map { |a| a.match?(/\s/) ? "\"#{a}\"" : a }.join(" ")}` on #{meta['started_at'][0, 10]}, " \
            "foreign CPU per trial median #{median&.round}% max #{foreign.last&.round}% of one core",
  "rounds" => by_round
}
path = File.expand_path("data/replay_rounds.json", __dir__)
data = File.exist?(path) ? JSON.parse(File.read(path)) : { "runs" => {} }
data["runs"][name] = entry
# One round a line: [a, b].
text = JSON.pretty_generate(data).gsub(/\[\s+([\d.]+),\s+([\d.]+)\s+\]/) { "[#{Regexp.last_match(1)}, #{Regexp.last_match(2)}]" }
File.write(path, "#{text}\n")
puts "#{name}: #{entry['label']}, #{by_round.size} rounds; #{entry['made']}"
