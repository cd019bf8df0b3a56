# frozen_string_literal: true

require "test_helper"
require "rackbench/search/tune/prediction"
require "rackbench/search/tune/candidates"

# What the probe's split predicts per server (Tune::Prediction): threads at
# the GVL's saturation (1/f) and one worker per core for a threaded server,
# cores / f single-threaded processes, one per core for fibers.
class TunePredictionTest < Minitest::Test
  P = Rackbench::Search::Tune::Prediction
  Limit = Rackbench::Search::Tune::Candidates::Limit

  def probes(f)
    [{ "split" => { "requests" => 200, "wall_ms" => 20.0, "cpu_ms" => 20.0 * f, "waiting_ms" => 20.0 * (1 - f) } }]
  end

  def limit(server, max)
    Limit.new(server: server, max_workers: max)
  end

  def test_each_kind_of_server
    records = { "puma" => probes(0.46), "unicorn" => probes(0.5), "falcon" => probes(0.2), "thin" => probes(0.9) }
    limits = [limit("puma", 6), limit("unicorn", 6), limit("falcon", 6), limit("thin", 1)]
    p = P.from(records: records, limits: limits, cores: 2)
    assert_equal({ "puma" => "puma x2:3", "unicorn" => "unicorn x4", "falcon" => "falcon x2", "thin" => "thin" },
                 p.guesses.transform_values(&:label))
    given = P.from(records: { "puma" => probes(0.46) }, limits: limits, cores: 2, ladders: { "puma" => [1, 2, 4] })
    assert_equal "puma x2:4", given.for("puma").label, "1/f = 2.2: the given ladder's next step"
    memory_bound = P.from(records: { "unicorn" => probes(0.25) }, limits: [limit("unicorn", 5)], cores: 2)
    assert_equal "unicorn x5", memory_bound.for("unicorn").label, "cores / f = 8, but memory fits 5"
    assert_in_delta 0.0, p.distance(Rackbench::Setup.parse("puma x2:3")), 1e-9
    assert_in_delta 2.0, p.distance(Rackbench::Setup.parse("puma x4:6")), 1e-9, "2x the workers and 2x the threads"
    assert_equal Float::INFINITY, p.distance(Rackbench::Setup.parse("pitchfork x2")), "no guess for it"
  end

  def test_no_split_or_no_room_predicts_nothing
    assert_nil P.from(records: { "puma" => [{ "rps" => 100 }] }, limits: [limit("puma", 4)], cores: 2)
    assert_nil P.from(records: { "puma" => probes(0.5) }, limits: [limit("puma", 0)], cores: 2), "no worker fits"
  end
end
