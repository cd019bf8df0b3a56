# frozen_string_literal: true

require "json"

module Rackbench
  module Search
    class Tune
      # The winner as a config file a deployment can use as it is: the same
      # workers, threads and preloading tune measured, listening on $PORT
      # (3000 when unset) on every interface (rackbench itself binds
      # 127.0.0.1 only; a deployment is usually reached from elsewhere).
      #
      #   puma       config/puma.rb       workers, threads min = max, preload_app!, bind
      #   unicorn    config/unicorn.rb    worker_processes, preload_app, listen
      #   pitchfork  config/pitchfork.rb  worker_processes, listen
      #   passenger  Passengerfile.json   min_instances = max_pool_size, spawn_method
      #   thin       config/thin.yml      one server
      #   falcon     none (its config is a Ruby DSL of services; the command line is given instead)
      module ConfigWriter
        module_function

        # {relative path => text}, or {} when the server has no config file.
        def files(setup, header:)
          comment = header.lines.map { |l| "# #{l.chomp}".rstrip }.join("\n")
          case setup.server
          when "puma" then { "config/puma.rb" => puma(setup, comment) }
          when "unicorn" then { "config/unicorn.rb" => unicorn(setup, comment) }
          when "pitchfork" then { "config/pitchfork.rb" => pitchfork(setup, comment) }
          when "passenger" then { "Passengerfile.json" => passenger(setup) }
          when "thin" then { "config/thin.yml" => thin(comment) }
          else {}
          end
        end

        # How to start the winner with that file (shown in the output).
        def command(setup)
          case setup.server
          when "puma" then "bundle exec puma -C config/puma.rb"
          when "unicorn" then "bundle exec unicorn -c config/unicorn.rb"
          when "pitchfork" then "bundle exec pitchfork -c config/pitchfork.rb"
          when "passenger" then "passenger start   (reads Passengerfile.json)"
          when "thin" then "bundle exec thin -C config/thin.yml start"
          when "falcon" then "bundle exec falcon serve --count #{setup.workers} --bind http://0.0.0.0:3000"
          end
        end

        def puma(setup, comment)
          cluster = setup.workers > 1
          lines = [comment, ""]
          lines << (cluster ? "workers #{setup.workers}" : "# single mode (one process): no workers, nothing to preload")
          lines << "threads #{setup.threads}, #{setup.threads}"
          lines << "preload_app!" if cluster && setup.preload
          lines << 'bind "tcp://0.0.0.0:#{ENV.fetch("PORT", "3000")}"'
          lines << 'environment ENV.fetch("RACK_ENV", "production")'
          "#{lines.join("\n")}\n"
        end

        def unicorn(setup, comment)
          <<~RUBY
            #{comment}

            worker_processes #{setup.workers}
            preload_app #{setup.preload}
            listen Integer(ENV.fetch("PORT", "3000"))
            timeout 30
          RUBY
        end

        def pitchfork(setup, comment)
          <<~RUBY
            #{comment}

            worker_processes #{setup.workers}
            listen Integer(ENV.fetch("PORT", "3000"))
            timeout 30
          RUBY
        end

        # JSON has no comments: the evidence is in recommendation.json beside it.
        def passenger(setup)
          JSON.pretty_generate(
            "environment" => "production", "port" => 3000, "engine" => "builtin",
            "min_instances" => setup.workers, "max_pool_size" => setup.workers,
            "spawn_method" => setup.preload ? "smart" : "direct",
            "disable_security_update_check" => true, "disable_anonymous_telemetry" => true
          ) + "\n"
        end

        def thin(comment)
          <<~YAML
            #{comment}

            servers: 1
            address: 0.0.0.0
            port: 3000
            environment: production
            rackup: config.ru
          YAML
        end
      end
    end
  end
end
