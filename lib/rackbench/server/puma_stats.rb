# frozen_string_literal: true

require "json"
require "net/http"
require_relative "../system/sockets"
require_relative "../process_control/http_probe"
require_relative "../deadline"

module Rackbench
  module Server
    # Puma's own view of its queue, read from its control app (GET
    # /stats?token=, started by Puma's config file: Server::Puma#stats_reader
    # makes one, and Sampling::Queues reads it).
    #
    # Per worker (cluster mode) or for the one process (single mode):
    # backlog = requests accepted and parsed that wait for a thread (the
    # thread pool's todo list), busy_threads = threads serving a request plus
    # that backlog (Puma >= 6.5 reports it; before, running - pool_capacity
    # + backlog), requests_count = requests served since boot.
    # Method and limits: in cluster mode each worker sends these to the master
    # every worker_check_interval (1 s as rackbench starts Puma), so a reading
    # is up to 1 s old and a 5 Hz series repeats values; in single mode they
    # are live, but the control app shares the app's process and GVL, so a
    # reading may wait for a CPU-bound app (hence its own thread in Sampling::Queues).
    # checkin: when a cluster worker last reported (nil in single mode): a
    # reading whose check-in predates the trial still shows the load before
    # it (the warm-up), so Sampling::QueueSummary keeps only readings after a fresh one.
    class PumaStats
      Worker = Struct.new(:pid, :index, :backlog, :busy, :threads, :requests, :checkin, keyword_init: true)

      TIMEOUT = 1.0

      # The control app's port: the port other than the server's own that
      # the master listens on; nil when there is none or more than one.
      # Found once per server (reading the socket tables takes a while on a busy machine).
      def self.control_port(master_pid, server_port)
        @control_ports ||= {}
        @control_ports[[master_pid, server_port]] ||= begin
          ports = System::Sockets.ports_of([master_pid]) - [server_port]
          ports.size == 1 ? ports.first : nil
        end
      end

      attr_reader :port

      # pid: the process a single-mode answer stands for (it names none).
      def initialize(port:, token:, pid: nil, timeout: TIMEOUT)
        @pid = pid
        @port = port
        @token = token
        @timeout = timeout
      end

      # [Worker] now; raises on a failed request or an answer without stats.
      def read
        self.class.parse(fetch, pid: @pid)
      end

      def fetch
        http = Net::HTTP.new("127.0.0.1", @port)
        http.open_timeout = http.read_timeout = @timeout
        body = +""
        response = nil
        unfinished = nil
        catch(:cut) do # read bounded as every HTTP read rackbench makes (HttpProbe.read_bounded)
          http.request(Net::HTTP::Get.new("/stats?token=#{@token}")) do |res|
            response = res
            unfinished = ProcessControl::HttpProbe.read_bounded(res, body, Deadline.in(@timeout), @timeout)
            throw :cut if unfinished
          end
        end
        raise Error, "Puma's control app answered #{response.code}" unless response.is_a?(Net::HTTPOK)
        raise Error, "Puma's control app's answer did not end: #{unfinished}" if unfinished

        JSON.parse(body)
      end

      def self.parse(stats, pid: nil)
        statuses = stats["worker_status"]
        return [worker(stats, { "pid" => pid }, 0)] unless statuses.is_a?(Array) # single mode

        statuses.filter_map { |w| w["last_status"].is_a?(Hash) && worker(w["last_status"], w, w["index"]) }
      end

      def self.worker(status, about, index)
        backlog = status["backlog"].to_i
        threads = status["max_threads"] || status["running"]
        busy = status["busy_threads"] || (status["running"].to_i - status["pool_capacity"].to_i + backlog)
        Worker.new(pid: about["pid"], index: index, backlog: backlog, busy: busy.to_i, threads: threads&.to_i,
                   requests: status["requests_count"]&.to_i, checkin: about["last_checkin"])
      end

      class Error < StandardError; end
    end
  end
end
