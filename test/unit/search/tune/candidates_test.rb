# frozen_string_literal: true

require "test_helper"
require "rackbench/search/tune/candidates"

class TuneCandidatesTest < Minitest::Test
  C = Rackbench::Search::Tune::Candidates

  def fp(server, per, master)
    C::Footprint.new(server: server, per_worker_mb: per, master_mb: master)
  end

  def test_workers_bounded_by_the_budget_measured_per_worker
    # (300 - 40) / 100 = 2.6 -> 2 workers fit; 8 cores would allow 16.
    cands, limits = C.build(footprints: { "unicorn" => fp("unicorn", 100.0, 40.0) }, budget_mb: 300, cores: 8)
    assert_equal ["unicorn x1", "unicorn x2"], cands.map(&:label)
    assert_equal 2, limits.first.max_workers
    assert_in_delta 240.0, cands.last.estimate_mb
    assert_match(/unicorn: 100 MiB per worker \+ 40.0 MiB master -> 2 workers fit in 300 MiB\z/, limits.first.note)
  end

  def test_capped_at_twice_the_cores_and_says_so
    cands, limits = C.build(footprints: { "unicorn" => fp("unicorn", 10.0, 10.0) }, budget_mb: 2048, cores: 2)
    assert_equal %w[x1 x2 x3 x4], cands.map { |c| c.label.split.last }
    assert_match(/203 workers fit in 2048 MiB; capped at 4 \(2 x 2 cores\)/, limits.first.note)
  end

  def test_max_workers_replaces_the_core_cap
    cands, limits = C.build(footprints: { "unicorn" => fp("unicorn", 10.0, 10.0) }, budget_mb: 2048, cores: 2, max_workers: 12)
    assert_equal [1, 2, 3, 4, 6, 8, 12], cands.map { |c| c.setup.workers }
    assert_match(/capped at 12 \(--max-workers 12\)/, limits.first.note)
  end

  def test_puma_gets_the_thread_ladder_others_one_thread
    cands, = C.build(footprints: { "puma" => fp("puma", 50.0, 50.0), "unicorn" => fp("unicorn", 50.0, 50.0) },
                     budget_mb: 160, cores: 4)
    puma = cands.select { |c| c.setup.server == "puma" }.map(&:label)
    assert_equal ["puma x1:1", "puma x1:2", "puma x1:3", "puma x1:5", "puma x1:8", "puma x1:16",
                  "puma x2:1", "puma x2:2", "puma x2:3", "puma x2:5", "puma x2:8", "puma x2:16"], puma
    assert_equal ["unicorn x1", "unicorn x2"], cands.reject { |c| c.setup.server == "puma" }.map(&:label)
    small, = C.build(footprints: { "puma" => fp("puma", 50.0, 50.0) }, budget_mb: 160, cores: 4, ladders: { "puma" => [1, 3, 5] })
    assert_equal 6, small.size
  end

  def test_thin_is_one_process_and_a_server_that_does_not_fit_is_left_out
    cands, limits = C.build(footprints: { "thin" => fp("thin", 60.0, 0.0), "unicorn" => fp("unicorn", 300.0, 50.0) },
                            budget_mb: 200, cores: 2)
    assert_equal ["thin"], cands.map(&:label)
    assert_match(/unicorn: 300 MiB per worker \+ 50.0 MiB master: not even one worker fits in 200 MiB/, limits.last.note)
  end

  def test_unmeasured_memory_falls_back_to_the_core_cap
    cands, limits = C.build(footprints: { "unicorn" => fp("unicorn", nil, nil) }, budget_mb: 200, cores: 1)
    assert_equal ["unicorn x1", "unicorn x2"], cands.map(&:label)
    assert_match(/memory was not measured/, limits.first.note)
  end

  def test_footprint_setups
    assert_equal "puma x2:1", C.footprint_setup("puma").label
    assert_equal "unicorn x2", C.footprint_setup("unicorn").label
    assert_equal "thin", C.footprint_setup("thin").label
    assert_equal "passenger x2", C.footprint_setup("passenger").label
    assert_equal [1, 2, 3, 4, 6, 8, 12, 16, 20], C.worker_counts(20)
  end
end
