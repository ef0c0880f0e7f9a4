import json

def lookup_weather_07e79f70e94a(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
