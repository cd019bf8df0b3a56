# frozen_string_literal: true

module Rackbench
  module Store
    # What the fields of a stored record must be, checked once, where a file
    # is read (JsonLines for each line, RunDir#meta for meta.json), so a
    # hand-edited run is one line naming the file and line, never a crash in
    # a report or a resume.
    #
    # A schema maps a key to the class its value must be when present and
    # not nil, or to a schema of its own for a nested object ("*": any other
    # key), or to [schema] for a list whose every item fits it. A number must also be finite and within LIMIT: 1e308 req/s would
    # overflow a sum to Infinity.
    module Schema
      LIMIT = 1e15 # beyond any count, rate, size or time a trial measures

      NUMBERS = { "*" => Numeric }.freeze
      MACHINE = %w[cpu_pct steal_pct interrupts_pct rackbench_pct client_reaped_pct foreign_pct foreign_error_pct
                   foreign_limit_pct window_s machine_pct ours_pct].to_h { |k| [k, Numeric] }.merge("window" => String).freeze

      # A trial's diagnostics (Sampling::QueueSummary, Sampling::Balance): a
      # source that could not be read is {"unknown" => reason}.
      READINGS = { "mean" => Numeric, "p95" => Numeric, "max" => Numeric, "samples" => Integer, "limit" => Numeric,
                   "unknown" => String }.freeze
      QUEUES = { "server" => { "kind" => String, "backlog" => READINGS, "busy_threads" => READINGS, "threads" => Integer,
                               "workers" => Integer, "unknown" => String },
                 "waiting_mean" => Numeric, "*" => READINGS }.freeze # "*": accept, front_accept
      BALANCE = { "workers" => [{ "pid" => Integer, "*" => Numeric }], "requests_source" => String, "spread" => Numeric,
                  "busiest_cpu_pct" => Numeric, "unknown" => String, "probe" => String }.freeze

      TRIAL = {
        "setup" => String, "endpoint" => String, "key" => String, "server" => String, "loop" => String,
        "repetition" => Integer, "take" => Integer, "concurrency" => Integer, "requests" => Integer, "workers" => Integer,
        "threads" => Integer, "error_total" => Integer, "rps" => Numeric, "goodput_rps" => Numeric, "duration_s" => Numeric,
        "rate" => Numeric, "error_rate" => Numeric, "bytes" => Numeric, "latency_ms" => NUMBERS, "errors" => NUMBERS,
        "memory" => NUMBERS, "cpu" => NUMBERS, "machine" => MACHINE,
        "sampler" => NUMBERS, "processes" => { "stopped_pids" => Array, "*" => Numeric },
        "queues" => QUEUES, "balance" => BALANCE, "cpus" => { "server" => String, "client" => String, "rule" => String }
      }.freeze

      SETUP = { "setup" => String, "status" => String, "repetition" => Integer, "port" => Integer, "boot_s" => Numeric,
                "master_pid" => Integer, "worker_pids" => Array, "argv" => Array }.freeze

      # config.app: a path (or "arena", "rails") that run --resume resolves;
      # config's other values are checked by Config.load.
      META = { "rackbench" => String, "command" => String, "argv" => Array, "cores" => Integer, "plan" => Hash,
               "config" => { "app" => String }, "engine" => Hash, "servers" => Hash, "resumed" => Array }.freeze

      KINDS = { Numeric => "number", Integer => "whole number", String => "string", Hash => "JSON object",
                Array => "list" }.freeze

      module_function

      # nil when record fits schema, else what is wrong, naming the field by
      # its path: "latency_ms.mean is \"x\", not a number".
      def problem(record, schema, path = nil)
        return nil if path.nil? && fits?(record, schema) # the usual case, with no name made (a report reads 100,000 lines)

        schema.each do |key, want|
          next if key == "*"

          found = field(record, key, want, path) and return found
        end
        return nil unless (any = schema["*"])

        record.each do |key, value|
          next if schema.key?(key) || value.nil?

          found = field(record, key, any, path) and return found
        end
        nil
      end

      # Whether record (a Hash) fits schema: #problem's test, naming
      # nothing, by a lambda made once for the schema (a report checks
      # every line of a 1 GB trials.jsonl).
      def fits?(record, schema)
        (@fits ||= {}.compare_by_identity)[schema] ||= Fit.new(schema).lambda
        @fits[schema].call(record)
      end

      # The source of one expression, true when a value fits a schema, and
      # its lambda. The source names keys, classes and schemas by their
      # index only (k[0], c[1], s[2]).
      class Fit
        def initialize(schema)
          @keys = []
          @classes = []
          @schemas = []
          @names = 0
          @source = object("r", schema)
        end

        def lambda
          eval("->(k, c, s, l) { ->(r) { #{@source} } }", TOPLEVEL_BINDING, __FILE__, __LINE__) # rubocop:disable Security/Eval
            .call(@keys, @classes, @schemas, LIMIT)
        end

        private

        # var, a Hash, fits schema.
        def object(var, schema)
          parts = schema.filter_map do |key, want|
            next if key == "*"

            x = name
            "((#{x} = #{var}[#{index(@keys, key)}]).nil? || #{value(x, want)})"
          end
          if schema.key?("*")
            k = name
            v = name
            parts << "#{var}.all? { |#{k}, #{v}| #{v}.nil? || #{index(@schemas, schema, 's')}.key?(#{k}) || #{value(v, schema['*'])} }"
          end
          parts.empty? ? "true" : parts.join(" && ")
        end

        # var (not nil) fits want: a schema, [schema] or a class (a number
        # finite and within LIMIT).
        def value(var, want)
          case want
          when Hash then "(#{var}.is_a?(Hash) && #{object(var, want)})"
          when Array
            e = name
            "(#{var}.is_a?(Array) && #{var}.all? { |#{e}| #{value(e, want.first)} })"
          else
            number = "(#{var}.finite? && #{var}.abs <= l)"
            test = want <= Numeric ? number : "(!#{var}.is_a?(Numeric) || #{number})"
            "(#{var}.is_a?(#{index(@classes, want, 'c')}) && #{test})"
          end
        end

        def index(list, item, prefix = "k")
          at = list.index { |x| x.equal?(item) } || (list << item).size - 1
          "#{prefix}[#{at}]"
        end

        def name = "x#{@names += 1}"
      end

      def field(record, key, want, path)
        value = record[key]
        return nil if value.nil?

        name = path ? "#{path}.#{key}" : key
        check(value, want, name)
      end

      def check(value, want, name)
        return (value.is_a?(Hash) ? problem(value, want, name) : wrong(name, value, Hash)) if want.is_a?(Hash)
        return (value.is_a?(Array) ? items(value, want.first, name) : wrong(name, value, Array)) if want.is_a?(Array)
        return wrong(name, value, want) unless value.is_a?(want)
        return nil unless value.is_a?(Numeric) && !(value.finite? && value.abs <= LIMIT)

        "#{name} is #{value.inspect[0, 40]}, beyond any measurement"
      end

      def items(list, want, name)
        list.each_with_index do |value, i|
          found = check(value, want, "#{name}[#{i}]") and return found
        end
        nil
      end

      def wrong(name, value, want)
        "#{name} is #{value.inspect[0, 40]}, not a #{KINDS.fetch(want, want.name.downcase)}"
      end
    end
  end
end
