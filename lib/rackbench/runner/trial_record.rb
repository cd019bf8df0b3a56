# frozen_string_literal: true

require_relative "../clock"
require_relative "errors"
require_relative "../server"
require_relative "../load/open_loop_validity"
require_relative "../load/remote/merge"

module Rackbench
  class Runner
    # The stored form of one trial: what was asked (plan trial) and what the
    # load engine measured. Latency figures carry the engine's loop ("closed":
    # measured from when the request was sent, hiding coordinated omission).
    module TrialRecord
      LATENCY_KEYS = %w[min mean stdev p50 p75 p90 p99 p99.9 p99.99 max].freeze

      module_function

      # timeout_s: the trial's --timeout (requests still unanswered at the end
      # are judged against it, Errors.with_unanswered).
      def build(trial, result, started_at:, log:, verification: nil, timeout_s: nil)
        setup = trial.setup
        unanswered = Errors.with_unanswered(result.errors, result, trial.concurrency || result.connections.to_i, timeout_s)
        errors = unanswered.errors
        classified = Errors.classify(errors, verification, server: setup.server, responses: result.responses)
        {
          "key" => trial.key, "setup" => setup.label, "server" => setup.server, "workers" => setup.workers,
          "threads" => setup.threads, "fibers" => fibers?(setup), "setup_runtime" => setup.runtime,
          "queues_inside" => Server::ADAPTERS[setup.server]&.queues_inside? || false, "endpoint" => trial.endpoint,
          "concurrency" => trial.concurrency || result.connections, "rate" => trial.rate,
          "repetition" => trial.repetition, "started_at" => started_at, "engine" => result.engine,
          "loop" => result.loop, "duration_s" => result.duration_s.round(6), "requests" => result.requests,
          "bytes" => result.bytes, "rps" => result.rps.round(2),
          "latency_ms" => result.latency_ms.slice(*LATENCY_KEYS).transform_values { |v| v&.round(3) },
          "goodput_rps" => Errors.goodput(result).round(2),
          "errors" => errors, "error_total" => classified["server_failures"],
          "error_rate" => Errors.error_rate(classified["server_failures"], result.responses, errors,
                                            unanswered: unanswered.count).round(6),
          "unanswered" => unanswered.count,
          "error_artifacts" => classified["artifacts"], "verified" => !verification.nil?,
          "notes" => Errors.notes(verification, unanswered: unanswered.note),
          "command" => result.command, "log" => log
        }.merge(throughput(result), open_loop(result), load_hosts(result), protocol(result, verification),
                trial.take ? { "take" => trial.take } : {})
      end

      # What the engine spoke, when it says (H2load: "h2c"); absent: HTTP/1.x.
      # Over HTTPS (--tls) always said, with "tls": the version and cipher
      # the load engine agreed when it says (h2load), else those of the
      # verification's handshake ("from" names which), and whose certificate.
      def protocol(result, verification = nil)
        tls = verification&.tls
        return result.protocol ? { "protocol" => result.protocol } : {} unless tls

        agreed = result.tls&.merge("from" => "load engine") || { "from" => "verification" }
        { "protocol" => result.protocol || "http/1.1", "tls" => tls.merge(agreed) }
      end

      # Whether the server serves many requests per process at once on fibers
      # (Falcon): its "threads" is then no count of slots (Stats::Verdict).
      def fibers?(setup)
        Server::ADAPTERS[setup.server]&.fibers?(setup) || false
      end

      # Load from other hosts (Load::Remote): each host's part beside the
      # merged figures; a closed-loop trial is judged too (a host failed or
      # ran its client above its CPU limit).
      def load_hosts(result)
        return {} unless result.hosts

        { "load_hosts" => result.hosts, "valid" => result.valid != false, "invalid_reason" => result.invalid_reason }
      end

      # How requests / duration_s (= rps) were counted: "whole" (every
      # response over the engine's run) or "window" (Load::CountWindow: whole
      # rounds of responses away from the run's ends, with the window's
      # bounds and the whole run's figures beside it).
      def throughput(result)
        return { "throughput_method" => "whole" } unless result.window

        w = result.window
        { "throughput_method" => "window",
          "window" => { "start_s" => w["start_s"].round(4), "end_s" => w["end_s"].round(4) },
          "run" => { "requests" => w["run_requests"], "duration_s" => w["run_duration_s"].round(4) } }
      end

      # Open loop: latency is measured from each request's planned send
      # (free of coordinated omission); service time beside it is not.
      # "in_flight" is what was unanswered when the load generator stopped
      # (the verdict's mean in flight is Little's law's, Stats::Verdict).
      def open_loop(result)
        return {} unless result.loop == "open"

        { "service_ms" => result.service_ms&.transform_values { |v| v&.round(3) },
          "target_rate" => result.target_rate, "achieved_rate" => result.achieved_rate&.round(2),
          "connections" => result.connections, "in_flight" => result.in_flight, "unsent" => result.unsent,
          "schedule_slip_ms" => result.schedule_slip_ms, "valid" => result.valid,
          "invalid_reason" => result.invalid_reason, "behind" => behind(result) }
      end

      # Who did not hold an invalid open-loop schedule, from what each side
      # measured: "client" when its sends went out late or a load host failed
      # or ran out of CPU (its own figures say so) and the server answered
      # what it was sent; "both" when the client lagged and the server left
      # more than 1% of the requests it was sent unanswered too
      # (OpenLoopValidity.server_lag); else "server". nil when valid.
      def behind(result)
        return nil if result.valid?
        return "server" unless client_behind?(result)

        server = Load::OpenLoopValidity.server_lag(completed: result.requests, in_flight: result.in_flight)
        server ? "both" : "client"
      end

      def client_behind?(result)
        hosts = Array(result.hosts)
        Load::OpenLoopValidity.client_lag(result.schedule_slip_ms) ||
          hosts.any? { |h| h["error"] || Load::OpenLoopValidity.client_lag(h["schedule_slip_ms"]) || host_cpu?(h) }
      end

      def host_cpu?(host)
        host.dig("client_cpu", "host_share").to_f > Load::Remote::Merge::CLIENT_CPU_LIMIT
      end
    end
  end
end
